import { Input, Label } from '../ui/Input';

/** The labelled Roblox username input of the lookup forms; `errorId` names the message that says what is wrong with it. */
export function UsernameField({ id, value, onChange, errorId }: { id: string; value: string; onChange: (value: string) => void; errorId?: string }) {
  return (
    <div className="flex min-w-0 flex-1 flex-col gap-1.5">
      <Label htmlFor={id}>Roblox username</Label>
      <Input
        id={id}
        value={value}
        placeholder="Enter a Roblox username..."
        autoComplete="off"
        spellcheck={false}
        maxLength={64}
        aria-invalid={errorId ? true : undefined}
        aria-describedby={errorId}
        onInput={(e) => onChange((e.currentTarget as HTMLInputElement).value)}
      />
    </div>
  );
}
