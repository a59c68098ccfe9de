import { useEffect, useState } from 'react';

/**
 * False during the first render, true once the browser has painted that frame. Parts of a screen that are
 * below the fold (or off screen) wait for it, so the first render is one short task instead of one long one
 * (Total Blocking Time on a phone) and the first screen paints sooner.
 */
export function useAfterFirstPaint(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    // rAF runs just before the paint; the timeout after it runs once the frame is on screen.
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setPainted(true), 0);
    });
    return () => {
      cancelAnimationFrame(frame);
      if (timer !== undefined) clearTimeout(timer);
    };
  }, []);
  return painted;
}
