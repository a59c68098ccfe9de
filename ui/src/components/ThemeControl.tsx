import { Monitor, Moon, Sun } from 'lucide-react';
import { nextThemeChoice, THEME_CHOICES, type ThemeChoice } from '../lib/theme';
import { cn } from './ui/cn';

const LABELS: Record<ThemeChoice, string> = { light: 'Light', dark: 'Dark', system: 'System' };
const ICONS = { light: Sun, dark: Moon, system: Monitor } as const;

export interface ThemeControlProps {
  choice: ThemeChoice;
  onChoose: (choice: ThemeChoice) => void;
  className?: string;
}

/**
 * The bar's theme button: shows the current choice and moves to the next (light, dark, system).
 * Its name says both, so a screen reader hears what a press does.
 */
export function ThemeCycleButton({ choice, onChoose, className }: ThemeControlProps) {
  const Icon = ICONS[choice];
  const next = nextThemeChoice(choice);
  return (
    <button
      type="button"
      onClick={() => onChoose(next)}
      aria-label={`Theme: ${LABELS[choice]} (switch to ${LABELS[next]})`}
      title={`Theme: ${LABELS[choice]}`}
      data-testid="theme-toggle"
      data-theme-choice={choice}
      className={className}
    >
      <Icon size={16} aria-hidden="true" />
    </button>
  );
}

/** The drawer's theme control: the three choices side by side, the current one pressed. */
export function ThemeChoices({ choice, onChoose, className }: ThemeControlProps) {
  return (
    <div role="group" aria-label="Theme" className={cn('flex gap-1 rounded-lg border border-slate-800 p-1', className)} data-testid="theme-choices">
      {THEME_CHOICES.map((option) => {
        const Icon = ICONS[option];
        const pressed = option === choice;
        return (
          <button
            key={option}
            type="button"
            aria-pressed={pressed}
            onClick={() => onChoose(option)}
            className={cn(
              'inline-flex min-h-11 min-w-0 flex-1 cursor-pointer items-center justify-center gap-1 rounded-md px-1 text-sm font-medium',
              pressed ? 'bg-violet-600/20 text-violet-200' : 'text-slate-300 hover:bg-slate-800',
            )}
          >
            <Icon size={16} aria-hidden="true" />
            {LABELS[option]}
          </button>
        );
      })}
    </div>
  );
}
