import { useEffect, useState } from 'react';
import { RotateCcw, Save, Trash2 } from 'lucide-react';
import { clearAllData, defaultPrivacy, loadPrivacy, savePrivacy, type PrivacyPrefs } from '../lib/privacy';
import { toast } from '../lib/toast';
import { Button } from './ui/Button';
import { Checkbox } from './ui/Switch';
import { Dialog } from './ui/Dialog';

type SettingKey = 'ipLogging' | 'analytics' | 'functional' | 'marketing';

const SETTINGS: { key: SettingKey; label: string; description: string; locked?: boolean }[] = [
  {
    key: 'ipLogging',
    label: 'IP logging',
    description: 'Keep your full IP address in server logs. When off, logs keep only a shortened, anonymised address.',
  },
  { key: 'analytics', label: 'Analytics', description: 'Help improve the site with usage analytics.' },
  {
    key: 'functional',
    label: 'Functional',
    description: 'Needed for the site to work, including remembering these preferences. Always on.',
    locked: true,
  },
  { key: 'marketing', label: 'Marketing', description: 'Personalised sponsored content.' },
];

export interface PrivacyPanelProps {
  open: boolean;
  onClose: () => void;
}

/** Privacy preferences dialog; preferences persist in the fanhub_privacy cookie and localStorage. */
export function PrivacyPanel({ open, onClose }: PrivacyPanelProps) {
  const [prefs, setPrefs] = useState<PrivacyPrefs>(defaultPrivacy);

  useEffect(() => {
    if (open) setPrefs(loadPrivacy());
  }, [open]);

  const set = (key: SettingKey, value: boolean) => {
    if (key === 'functional') return;
    setPrefs((p) => ({ ...p, [key]: value }));
  };

  const reset = () => {
    const defaults = defaultPrivacy();
    setPrefs(defaults);
    savePrivacy(defaults);
  };

  const save = () => {
    savePrivacy(prefs);
    toast({ title: 'Privacy preferences saved' });
    onClose();
  };

  const clearAll = () => {
    clearAllData();
    window.location.reload();
  };

  return (
    <Dialog open={open} onClose={onClose} title="Privacy Settings" description="Choose what this site may store and log about you.">
      <ul className="mt-4 flex flex-col gap-3">
        {SETTINGS.map((s) => {
          const id = `privacy-${s.key}`;
          return (
            <li key={s.key} className="flex items-start gap-3 rounded-lg border border-slate-800 bg-slate-950/60 p-3">
              <Checkbox
                id={id}
                name={s.key}
                checked={prefs[s.key]}
                disabled={s.locked}
                onCheckedChange={(v) => set(s.key, v)}
                aria-describedby={`${id}-desc`}
                className="mt-0.5"
              />
              <div className="grid gap-0.5">
                <label htmlFor={id} className="text-sm font-medium text-slate-100">
                  {s.label}
                  {s.locked && <span className="ml-2 text-xs font-normal text-slate-400">(required)</span>}
                </label>
                <p id={`${id}-desc`} className="text-xs text-slate-400">
                  {s.description}
                </p>
              </div>
            </li>
          );
        })}
      </ul>
      <div className="mt-5 flex flex-col-reverse gap-2 sm:flex-row sm:flex-wrap sm:justify-end">
        <Button variant="outline" onClick={reset}>
          <RotateCcw size={16} aria-hidden="true" />
          Reset Consent
        </Button>
        <Button variant="destructive" onClick={clearAll}>
          <Trash2 size={16} aria-hidden="true" />
          Clear All Data
        </Button>
        <Button onClick={save}>
          <Save size={16} aria-hidden="true" />
          Save Preferences
        </Button>
      </div>
    </Dialog>
  );
}
