import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef, useState } from 'react';
import { ImagePlus, Plus, Send, Sparkles, Trash2 } from 'lucide-react';
import { ApiError, errorSentence } from '../../lib/api';
import {
  CUSTOM_MESSAGE_MAX,
  DURATIONS,
  EMPTY_AD_FORM,
  IMAGE_ACCEPT,
  IMAGE_MAX_BYTES,
  MAX_DESCRIPTION,
  MAX_LINKS,
  MISSING_INFORMATION,
  SUBMITTED,
  SUBMIT_FAILED,
  TARGET_AUDIENCES,
  addLink,
  adFormData,
  isPremium,
  missingFields,
  removeLink,
  setLink,
  useSubmitAd,
  type AdDuration,
  type AdFormValues,
  type MessageType,
} from '../../lib/ads';
import { toast } from '../../lib/toast';
import { Button } from '../ui/Button';
import { INPUT_CLASS, Input, Label, Textarea } from '../ui/Input';
import { cn } from '../ui/cn';
import { SubmittedNotice, type SubmittedRequest } from './SubmittedNotice';

type FieldErrors = Partial<Record<string, string>>;

function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="text-sm text-red-400">
      {message}
    </p>
  );
}

function Hint({ id, children }: { id: string; children: ComponentChildren }) {
  return (
    <p id={id} className="text-xs text-slate-400">
      {children}
    </p>
  );
}

const describedBy = (...ids: (string | false | undefined)[]) => ids.filter(Boolean).join(' ') || undefined;

/** The advertisement form: every field with its checks, submitted as the multipart parts of `adFormData`. */
export function AdForm() {
  const id = useId();
  const [values, setValues] = useState<AdFormValues>(EMPTY_AD_FORM);
  const [image, setImage] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  // Remounting the file input is the only way to clear its selection.
  const [imageInputKey, setImageInputKey] = useState(0);
  const submit = useSubmitAd();
  const form = useRef<HTMLFormElement>(null);
  const notice = useRef<HTMLDivElement>(null);
  // The last request the server accepted: its reference and what happens next stay in view.
  const [submitted, setSubmitted] = useState<SubmittedRequest | null>(null);
  useEffect(() => {
    if (!submitted) return;
    notice.current?.focus({ preventScroll: true });
    notice.current?.scrollIntoView({ block: 'nearest' });
  }, [submitted]);

  const set = <K extends keyof AdFormValues>(key: K, value: AdFormValues[K]) => {
    setValues((v) => ({ ...v, [key]: value }));
    if (errors[key]) setErrors((e) => ({ ...e, [key]: undefined }));
  };

  function reset() {
    setValues(EMPTY_AD_FORM);
    setImage(null);
    setErrors({});
    setImageInputKey((k) => k + 1);
  }

  function onSubmit(e: Event) {
    e.preventDefault();
    if (submit.isPending) return;
    const missing = missingFields(values, image);
    if (Object.keys(missing).length > 0 || !image) {
      // Marked at each field too; the focus goes to the first of them.
      setErrors((e) => ({ ...e, ...missing }));
      toast({ ...MISSING_INFORMATION, variant: 'destructive' });
      requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
      return;
    }
    if (image.size > IMAGE_MAX_BYTES) {
      setErrors({ image: 'The image may be at most 5 MB.' });
      toast({ title: SUBMIT_FAILED.title, description: 'The image may be at most 5 MB.', variant: 'destructive' });
      return;
    }
    submit.mutate(adFormData(values, image), {
      onSuccess: (answer) => {
        toast(SUBMITTED);
        setSubmitted({ id: answer.id, duration: values.duration });
        reset();
      },
      onError: (err) => {
        setErrors(err instanceof ApiError && err.fields ? err.fields : {});
        toast({ title: SUBMIT_FAILED.title, description: errorSentence(err, SUBMIT_FAILED.fallback), variant: 'destructive' });
      },
    });
  }

  const premium = isPremium(values.duration);
  const ids = {
    url: `${id}-url`,
    description: `${id}-description`,
    audience: `${id}-audience`,
    image: `${id}-image`,
    message: `${id}-message`,
  };

  return (
    <form ref={form} noValidate onSubmit={onSubmit} aria-label="Advertisement request" className="grid gap-6">
      {submitted && <SubmittedNotice ref={notice} request={submitted} />}
      <p className="text-sm text-slate-400">
        Fields marked <span aria-hidden="true">*</span>
        <span className="sr-only">required</span> are required.
      </p>

      <div className="grid gap-2">
        <Label htmlFor={ids.url}>
          Website URL <span aria-hidden="true">*</span>
        </Label>
        <Input
          id={ids.url}
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://example.com"
          value={values.websiteUrl}
          onInput={(e) => set('websiteUrl', e.currentTarget.value)}
          aria-required="true"
          aria-invalid={errors.websiteUrl ? true : undefined}
          aria-describedby={describedBy(errors.websiteUrl && `${ids.url}-error`)}
        />
        <FieldError id={`${ids.url}-error`} message={errors.websiteUrl} />
      </div>

      <div className="grid gap-2">
        <Label htmlFor={ids.description}>
          Description <span aria-hidden="true">*</span>
        </Label>
        <Textarea
          id={ids.description}
          rows={4}
          maxLength={MAX_DESCRIPTION}
          placeholder="What are you advertising, and why will players like it?"
          value={values.adDescription}
          onInput={(e) => set('adDescription', e.currentTarget.value)}
          aria-required="true"
          aria-invalid={errors.adDescription ? true : undefined}
          aria-describedby={describedBy(`${ids.description}-count`, errors.adDescription && `${ids.description}-error`)}
        />
        <Hint id={`${ids.description}-count`}>
          {values.adDescription.length}/{MAX_DESCRIPTION} characters
        </Hint>
        <FieldError id={`${ids.description}-error`} message={errors.adDescription} />
      </div>

      <div className="grid gap-2">
        <Label htmlFor={ids.audience}>Target Audience</Label>
        <select
          id={ids.audience}
          value={values.targetAudience}
          onInput={(e) => set('targetAudience', e.currentTarget.value)}
          className={cn(INPUT_CLASS, 'cursor-pointer')}
          aria-invalid={errors.targetAudience ? true : undefined}
          aria-describedby={describedBy(errors.targetAudience && `${ids.audience}-error`)}
        >
          <option value="">Select target audience (optional)</option>
          {TARGET_AUDIENCES.map((a) => (
            <option key={a.value} value={a.value}>
              {a.label}
            </option>
          ))}
        </select>
        <FieldError id={`${ids.audience}-error`} message={errors.targetAudience} />
      </div>

      <DurationField value={values.duration} onChange={(d) => set('duration', d)} error={errors.duration} />

      {premium && (
        <PremiumOptions
          id={ids.message}
          messageType={values.messageType}
          message={values.customMessage}
          error={errors.fullscreenCustomMessage ?? errors.fullscreenMessageType}
          onMessageType={(t) => set('messageType', t)}
          onMessage={(m) => set('customMessage', m)}
        />
      )}

      <LinksField links={values.links} onChange={(links) => set('links', links)} error={errors.links} />

      <ImageField
        key={imageInputKey}
        id={ids.image}
        file={image}
        error={errors.image}
        onChange={(file) => {
          setImage(file);
          setErrors((e) => ({ ...e, image: file && file.size > IMAGE_MAX_BYTES ? 'The image may be at most 5 MB.' : undefined }));
        }}
      />

      <div>
        <Button type="submit" size="lg" disabled={submit.isPending} className="w-full sm:w-auto">
          <Send size={18} aria-hidden="true" />
          {submit.isPending ? 'Submitting...' : 'Submit Advertisement'}
        </Button>
      </div>
    </form>
  );
}

/** A radio button in a card; its accessible name is the label alone, the hint is its description. */
function RadioCard(props: { id: string; name: string; value: string; checked: boolean; onSelect: () => void; label: string; hint: string }) {
  const { id, name, value, checked, onSelect, label, hint } = props;
  return (
    <label
      className={cn(
        'flex cursor-pointer items-start gap-3 rounded-lg border p-3',
        checked ? 'border-violet-500 bg-violet-600/15' : 'border-slate-700 bg-slate-950 hover:border-slate-500',
      )}
    >
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={onSelect}
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-hint`}
        className="mt-0.5 h-4 w-4 shrink-0 accent-violet-500"
      />
      <span className="grid gap-0.5">
        <span id={`${id}-label`} className="font-medium text-white">
          {label}
        </span>
        <span id={`${id}-hint`} className="text-xs text-slate-300">
          {hint}
        </span>
      </span>
    </label>
  );
}

function DurationField({ value, onChange, error }: { value: AdDuration; onChange: (d: AdDuration) => void; error?: string }) {
  const id = useId();
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="mb-2 text-sm font-medium text-slate-200">Duration</legend>
      <div className="grid gap-3 sm:grid-cols-3">
        {DURATIONS.map((d) => (
          <RadioCard
            key={d.value}
            id={`${id}-${d.value}`}
            name={`${id}-duration`}
            value={d.value}
            checked={value === d.value}
            onSelect={() => onChange(d.value)}
            label={d.label}
            hint={`${d.price} · ${d.detail}`}
          />
        ))}
      </div>
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}

function LinksField({ links, onChange, error }: { links: string[]; onChange: (links: string[]) => void; error?: string }) {
  const id = useId();
  const added = useRef(false);
  const list = useRef<HTMLDivElement>(null);
  // Move focus to the field a click on Add Link created.
  useEffect(() => {
    if (!added.current) return;
    added.current = false;
    const inputs = list.current?.querySelectorAll('input');
    inputs?.[inputs.length - 1]?.focus();
  }, [links.length]);

  return (
    <fieldset className="grid gap-2" aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}>
      <legend className="mb-2 text-sm font-medium text-slate-200">Additional Links</legend>
      <Hint id={`${id}-hint`}>Other pages of yours (store, video, server invite). Empty fields are ignored.</Hint>
      <div ref={list} className="grid gap-2">
        {links.map((link, i) => (
          <div key={i} className="flex gap-2" data-testid="ad-link-row">
            <Input
              type="url"
              inputMode="url"
              placeholder="https://"
              aria-label={`Additional link ${i + 1}`}
              value={link}
              onInput={(e) => onChange(setLink(links, i, e.currentTarget.value))}
            />
            {links.length > 1 && (
              <Button
                variant="outline"
                size="icon"
                aria-label={`Remove link ${i + 1}`}
                onClick={() => {
                  onChange(removeLink(links, i));
                  // Keep focus in the list rather than losing it with the removed button.
                  requestAnimationFrame(() => list.current?.querySelector<HTMLInputElement>('input')?.focus());
                }}
              >
                <Trash2 size={16} aria-hidden="true" />
              </Button>
            )}
          </div>
        ))}
      </div>
      <div>
        <Button
          variant="outline"
          size="sm"
          disabled={links.length >= MAX_LINKS}
          onClick={() => {
            added.current = true;
            onChange(addLink(links));
          }}
        >
          <Plus size={16} aria-hidden="true" /> Add Link
        </Button>
      </div>
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}

function formatSize(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

function ImageField({ id, file, error, onChange }: { id: string; file: File | null; error?: string; onChange: (file: File | null) => void }) {
  // A data: URL, not a blob: one: the Content-Security-Policy allows data: images only.
  const [preview, setPreview] = useState('');
  useEffect(() => {
    setPreview('');
    if (!file || file.size > IMAGE_MAX_BYTES || typeof FileReader === 'undefined') return;
    const reader = new FileReader();
    reader.onload = () => setPreview(typeof reader.result === 'string' ? reader.result : '');
    reader.readAsDataURL(file);
    return () => reader.abort();
  }, [file]);

  return (
    <div className="grid gap-2">
      <Label htmlFor={id}>
        Advertisement Image <span aria-hidden="true">*</span>
      </Label>
      <div className="flex flex-col gap-3 rounded-lg border border-dashed border-slate-600 bg-slate-950 p-4 sm:flex-row sm:items-center">
        {preview ? (
          <img src={preview} alt="Preview of the chosen image" className="h-auto max-h-20 w-auto max-w-40 shrink-0 rounded-lg object-contain" />
        ) : (
          <div aria-hidden="true" className="flex h-20 w-20 shrink-0 items-center justify-center rounded-lg bg-slate-800 text-slate-300">
            <ImagePlus size={28} />
          </div>
        )}
        <div className="grid min-w-0 gap-1">
          <input
            id={id}
            type="file"
            accept={IMAGE_ACCEPT}
            onInput={(e) => onChange(e.currentTarget.files?.[0] ?? null)}
            aria-required="true"
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy(`${id}-hint`, error && `${id}-error`)}
            className="block w-full min-w-0 cursor-pointer text-sm text-slate-300 file:mr-3 file:cursor-pointer file:rounded-lg file:border-0 file:bg-violet-600 file:px-3 file:py-2 file:font-medium file:text-white hover:file:bg-violet-500"
          />
          {file && (
            <p className="break-all text-xs text-slate-300" data-testid="ad-image-name">
              {file.name} ({formatSize(file.size)})
            </p>
          )}
          <Hint id={`${id}-hint`}>PNG, JPEG, WebP or GIF, at most 5 MB and 4096 pixels a side. The banner's colours are taken from it.</Hint>
        </div>
      </div>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

function PremiumOptions({
  id,
  messageType,
  message,
  error,
  onMessageType,
  onMessage,
}: {
  id: string;
  messageType: MessageType;
  message: string;
  error?: string;
  onMessageType: (t: MessageType) => void;
  onMessage: (m: string) => void;
}) {
  const options: { value: MessageType; label: string; hint: string }[] = [
    { value: 'ai-generated', label: 'AI-generated message', hint: 'We write it from your description and website.' },
    { value: 'user-input', label: 'Custom message', hint: 'You write it yourself.' },
  ];
  return (
    <fieldset className="grid gap-3 rounded-xl border border-violet-500/50 bg-violet-600/10 p-4" data-testid="premium-options">
      <legend className="flex items-center gap-2 px-1 text-sm font-semibold text-violet-200">
        <Sparkles size={16} aria-hidden="true" /> Premium Full-Screen Options
      </legend>
      <div role="radiogroup" aria-label="Full-screen message" className="grid gap-2 sm:grid-cols-2">
        {options.map((o) => (
          <RadioCard
            key={o.value}
            id={`${id}-${o.value}`}
            name={`${id}-type`}
            value={o.value}
            checked={messageType === o.value}
            onSelect={() => onMessageType(o.value)}
            label={o.label}
            hint={o.hint}
          />
        ))}
      </div>
      {messageType === 'user-input' && (
        <div className="grid gap-2">
          <Label htmlFor={id}>Custom full-screen message</Label>
          <Textarea
            id={id}
            rows={3}
            maxLength={CUSTOM_MESSAGE_MAX}
            placeholder="The message shown on your full-screen ad"
            value={message}
            onInput={(e) => onMessage(e.currentTarget.value.slice(0, CUSTOM_MESSAGE_MAX))}
            aria-invalid={error ? true : undefined}
            aria-describedby={describedBy(`${id}-count`, error && `${id}-error`)}
          />
          <p id={`${id}-count`} className="text-right text-xs text-slate-300" data-testid="custom-message-count">
            {message.length}/{CUSTOM_MESSAGE_MAX} characters
          </p>
        </div>
      )}
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}
