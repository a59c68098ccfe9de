import { useEffect, useRef, useState } from 'react';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../lib/toast';

/** The copied indicator shows for 2 s. */
export const COPIED_MS = 2000;

/**
 * Copy text with a toast, and remember which item was copied for COPIED_MS (for a check mark).
 * `failDescription` is the failure toast's advice (e.g. to select the text by hand).
 */
export function useCopy({ failDescription = 'Your browser did not allow copying.' }: { failDescription?: string } = {}) {
  const [copied, setCopied] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(() => () => {
    if (timer.current) clearTimeout(timer.current);
  }, []);

  async function copy(text: string, key: string = text) {
    const ok = await copyText(text);
    if (ok) {
      toast({ title: 'Copied to clipboard' });
      setCopied(key);
      if (timer.current) clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopied(null), COPIED_MS);
    } else {
      toast({ title: 'Copy failed', description: failDescription, variant: 'destructive' });
    }
  }

  return { copy, copied };
}
