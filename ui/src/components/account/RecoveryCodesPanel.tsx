import { useState } from 'react';
import { Check, Copy, Download, LifeBuoy } from 'lucide-react';
import { Button } from '../ui/Button';
import { copyText } from '../../lib/clipboard';
import { recoveryCodesText } from '../../lib/secondFactor';

/**
 * Ten recovery codes, shown once (after the first second factor, or new ones): copy them,
 * download them, and say they are saved.
 */
export function RecoveryCodesPanel({
  codes,
  siteName,
  username,
  onDone,
}: {
  codes: string[];
  siteName: string;
  username: string;
  onDone: () => void;
}) {
  const [copied, setCopied] = useState(false);
  const text = recoveryCodesText(siteName, username, codes);
  const fileName = `${siteName.replace(/[^A-Za-z0-9]+/g, '-').toLowerCase() || 'site'}-recovery-codes.txt`;
  const download = `data:text/plain;charset=utf-8,${encodeURIComponent(text)}`;

  return (
    <section
      aria-labelledby="recovery-codes-heading"
      className="rounded-xl border border-amber-500/40 bg-amber-500/10 p-3 sm:p-5"
      data-testid="recovery-codes"
    >
      <h3 id="recovery-codes-heading" className="flex items-center gap-2 text-base font-semibold text-amber-200">
        <LifeBuoy size={18} aria-hidden="true" /> Save your recovery codes now
      </h3>
      <p className="mt-1 text-sm text-slate-300">
        If you lose your phone or security key, each code signs you in once. This is the only time they are shown:
        keep them somewhere safe, not on the same phone.
      </p>
      <ol className="mt-4 grid grid-cols-1 gap-2 font-mono text-sm min-[420px]:grid-cols-2">
        {codes.map((code) => (
          <li key={code} className="rounded-md border border-slate-700 bg-slate-950 px-3 py-1.5 text-center tracking-wide text-slate-100">
            {code}
          </li>
        ))}
      </ol>
      <div className="mt-4 flex flex-col gap-2 sm:flex-row sm:flex-wrap">
        <Button
          variant="outline"
          onClick={async () => {
            if (await copyText(codes.join('\n'))) {
              setCopied(true);
              setTimeout(() => setCopied(false), 2000);
            }
          }}
        >
          {copied ? <Check size={16} aria-hidden="true" /> : <Copy size={16} aria-hidden="true" />}
          {copied ? 'Copied!' : 'Copy codes'}
        </Button>
        <a
          href={download}
          download={fileName}
          className="inline-flex h-10 items-center justify-center gap-2 rounded-lg border border-slate-700 px-4 text-sm font-medium text-slate-100 hover:bg-slate-800"
        >
          <Download size={16} aria-hidden="true" /> Download as a file
        </a>
        <Button onClick={onDone}>I saved them</Button>
      </div>
    </section>
  );
}
