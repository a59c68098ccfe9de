import { useId } from 'react';
import { Input, Label } from '../ui/Input';
import { cn } from '../ui/cn';

export interface FormFieldProps {
  label: string;
  name: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'password';
  autoComplete?: string;
  /** Shown under the field, linked with aria-describedby; marks the input invalid. */
  error?: string;
  hint?: string;
  disabled?: boolean;
  autoFocus?: boolean;
  placeholder?: string;
  className?: string;
  /** The keyboard a phone shows (`numeric` for codes). */
  inputMode?: 'text' | 'numeric';
  maxLength?: number;
}

/** A labelled input with its validation message underneath. */
export function FormField({ label, name, value, onInput, type = 'text', autoComplete, error, hint, disabled, autoFocus, placeholder, className, inputMode, maxLength }: FormFieldProps) {
  const id = useId();
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={cn('flex flex-col gap-1.5', className)}>
      <Label htmlFor={id}>{label}</Label>
      <Input
        id={id}
        name={name}
        type={type}
        value={value}
        autoComplete={autoComplete}
        disabled={disabled}
        autoFocus={autoFocus}
        placeholder={placeholder}
        inputMode={inputMode}
        maxLength={maxLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy}
        className={error ? 'border-red-500 focus:border-red-400' : undefined}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
      {hint && (
        <p id={hintId} className="text-xs text-slate-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-sm text-red-400" data-testid={`${name}-error`}>
          {error}
        </p>
      )}
    </div>
  );
}
