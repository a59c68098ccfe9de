import { useEffect, useRef } from 'react';
import { useLocation } from 'wouter';
import { createPageviewTracker } from '../lib/pageview';

/** Beacons every client-side location change after the first; scrolls to the top on a new page. */
export function PageviewTracker() {
  const [location] = useLocation();
  const track = useRef<((path: string) => void) | null>(null);
  if (!track.current) track.current = createPageviewTracker();
  const first = useRef(true);
  useEffect(() => {
    track.current!(location);
    if (first.current) {
      first.current = false;
      return;
    }
    if (typeof window.scrollTo === 'function') window.scrollTo(0, 0);
  }, [location]);
  return null;
}
