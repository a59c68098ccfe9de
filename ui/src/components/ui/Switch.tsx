import { cn } from './cn';

export interface SwitchProps {
  checked: boolean;
  onCheckedChange?: (checked: boolean) => void;
  disabled?: boolean;
  id?: string;
  /** Accessible name when no <label for> points at it. */
  'aria-label'?: string;
  'aria-labelledby'?: string;
  'aria-describedby'?: string;
  className?: string;
}

/** An on/off switch: a <button role="switch" aria-checked>. */
export function Switch({ checked, onCheckedChange, disabled, className, ...aria }: SwitchProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      disabled={disabled}
      onClick={() => onCheckedChange?.(!checked)}
      className={cn(
        'relative inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full border border-slate-700 transition-colors disabled:cursor-not-allowed disabled:opacity-50',
        checked ? 'bg-violet-600' : 'bg-slate-800',
        className,
      )}
      {...aria}
    >
      <span
        aria-hidden="true"
        className={cn('inline-block h-4 w-4 rounded-full bg-white shadow transition-transform', checked ? 'translate-x-6' : 'translate-x-1')}
      />
    </button>
  );
}

export interface CheckboxProps {
  checked: boolean;
  onCheckedChange?: (checked: boolean) => void;
  disabled?: boolean;
  id?: string;
  name?: string;
  'aria-label'?: string;
  'aria-describedby'?: string;
  className?: string;
}

/** A native checkbox styled with an accent colour. */
export function Checkbox({ checked, onCheckedChange, className, ...rest }: CheckboxProps) {
  return (
    <input
      type="checkbox"
      checked={checked}
      onChange={(e) => onCheckedChange?.((e.currentTarget as HTMLInputElement).checked)}
      className={cn('h-5 w-5 shrink-0 cursor-pointer accent-violet-600 disabled:cursor-not-allowed disabled:opacity-60', className)}
      {...rest}
    />
  );
}
