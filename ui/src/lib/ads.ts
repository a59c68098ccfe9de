// The advertise page: the form's values and its multipart parts, the links list rules,
// the audience figures (a figure the server did not measure stays absent) and the submit call.
import { useMutation } from '@tanstack/react-query';
import { apiRequest } from './api';
import type { components } from './api/schema';
import type { PublicStats } from './types';

export type AdDuration = '1-day' | '1-month' | '10-fullscreen';
export type MessageType = 'ai-generated' | 'user-input';

/** The target audience values the form offers. */
export const TARGET_AUDIENCES: { value: string; label: string }[] = [
  { value: 'young-gamers', label: 'Young gamers' },
  { value: 'roblox-players', label: 'Roblox players' },
  { value: 'game-developers', label: 'Game developers' },
  { value: 'general-gaming', label: 'General gaming' },
  { value: 'server-admins', label: 'Server admins' },
];

/** The ad durations: the value sent, its label, its price and what it buys. */
export const DURATIONS: { value: AdDuration; label: string; price: string; detail: string; runs: string }[] = [
  { value: '1-day', label: '1 day', price: 'Free', detail: 'The bottom banner for 24 hours', runs: '24 hours' },
  { value: '1-month', label: '1 month', price: '$1.00', detail: 'The bottom banner for 30 days', runs: '30 days' },
  {
    value: '10-fullscreen',
    label: '10-fullscreen',
    price: '$10.00',
    detail: 'Premium full-screen ad and the banner for 10 days',
    runs: '10 days',
  },
];

/** How long the server keeps the image of a rejected request (for the audit) before deleting it. */
export const REJECTED_IMAGE_KEPT = '7 days';

export const CUSTOM_MESSAGE_MAX = 200;
/** The server keeps at most this many additional links. */
export const MAX_LINKS = 10;
export const MAX_DESCRIPTION = 1000;
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
/** What the server accepts (checked by its bytes there); SVG is refused, so not `image/*`. */
export const IMAGE_ACCEPT = 'image/png,image/jpeg,image/webp,image/gif';
export const REVIEW_TIME = '1 to 2 business days';

export const MISSING_INFORMATION = {
  title: 'Missing Information',
  description: 'Please fill in website URL, description, and upload an image',
} as const;
export const SUBMITTED = {
  title: 'Advertisement Submitted!',
  description: "Your advertisement request has been sent for manual review. We'll get back to you soon.",
} as const;
export const SUBMIT_FAILED = {
  title: 'Submission Failed',
  fallback: 'There was an error submitting your advertisement. Please try again.',
} as const;

export interface AdFormValues {
  websiteUrl: string;
  adDescription: string;
  /** '' when none was chosen (the field is optional). */
  targetAudience: string;
  duration: AdDuration;
  links: string[];
  messageType: MessageType;
  customMessage: string;
}

export const EMPTY_AD_FORM: AdFormValues = {
  websiteUrl: '',
  adDescription: '',
  targetAudience: '',
  duration: '1-day',
  links: [''],
  messageType: 'ai-generated',
  customMessage: '',
};

/** Premium options exist only for 10-fullscreen. */
export function isPremium(duration: AdDuration): boolean {
  return duration === '10-fullscreen';
}

export function addLink(links: readonly string[]): string[] {
  return links.length >= MAX_LINKS ? [...links] : [...links, ''];
}

/** Removes link `index`; removing the last one leaves one empty field. */
export function removeLink(links: readonly string[], index: number): string[] {
  const rest = links.filter((_, i) => i !== index);
  return rest.length ? rest : [''];
}

export function setLink(links: readonly string[], index: number, value: string): string[] {
  return links.map((l, i) => (i === index ? value : l));
}

/** The links as sent: trimmed, empty entries dropped. */
export function submittedLinks(links: readonly string[]): string[] {
  return links.map((l) => l.trim()).filter(Boolean);
}

/** Website URL, description and image are required. */
export function isMissingRequired(values: AdFormValues, image: File | null): boolean {
  return Object.keys(missingFields(values, image)).length > 0;
}

/** What each required field left empty says at the field (keyed by the server's field names). */
export const REQUIRED_MESSAGES = {
  websiteUrl: "Enter your website's address.",
  adDescription: 'Describe what you advertise.',
  image: 'Choose an image for your ad.',
} as const;

/** The required fields left empty, with the message each shows. */
export function missingFields(values: AdFormValues, image: File | null): Partial<Record<keyof typeof REQUIRED_MESSAGES, string>> {
  const out: Partial<Record<keyof typeof REQUIRED_MESSAGES, string>> = {};
  if (!values.websiteUrl.trim()) out.websiteUrl = REQUIRED_MESSAGES.websiteUrl;
  if (!values.adDescription.trim()) out.adDescription = REQUIRED_MESSAGES.adDescription;
  if (!image) out.image = REQUIRED_MESSAGES.image;
  return out;
}

/** The form's multipart parts. Premium parts only with 10-fullscreen; the custom message only with user-input. */
export function adFormData(values: AdFormValues, image: File): FormData {
  const form = new FormData();
  form.append('websiteUrl', values.websiteUrl.trim());
  form.append('adDescription', values.adDescription.trim());
  if (values.targetAudience) form.append('targetAudience', values.targetAudience);
  form.append('duration', values.duration);
  form.append('links', JSON.stringify(submittedLinks(values.links)));
  form.append('image', image, image.name);
  if (isPremium(values.duration)) {
    form.append('premiumFullscreen', 'true');
    form.append('fullscreenMessageType', values.messageType);
    const message = values.customMessage.trim();
    if (values.messageType === 'user-input' && message) form.append('fullscreenCustomMessage', message);
  }
  return form;
}

export type Submitted = components['schemas']['Submitted'];

export function useSubmitAd() {
  return useMutation<Submitted, unknown, FormData>({
    mutationFn: (form) => apiRequest<Submitted>('POST', '/api/advertise', form),
  });
}

export interface AudienceFigure {
  key: 'monthlyVisitors' | 'discordMembers' | 'userSatisfaction' | 'targetedAudience';
  label: string;
  /** null: the server did not measure it (shown as such, never invented). */
  value: string | null;
  /** What the figure counts, or why it is missing. */
  note: string;
}

const count = (n: number) => n.toLocaleString('en-US');

/** The four audience figures of the advertise page, from `GET /api/stats`. */
export function audienceFigures(stats: PublicStats): AudienceFigure[] {
  const measured = (n: number | null | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
  const satisfaction = stats.userSatisfaction;
  return [
    {
      key: 'monthlyVisitors',
      label: 'Monthly Visitors',
      value: measured(stats.monthlyVisitors) ? count(stats.monthlyVisitors) : null,
      note: measured(stats.monthlyVisitors) ? 'Different visitors this month, counted by the server' : 'Not counted yet',
    },
    {
      key: 'discordMembers',
      label: 'Discord Members',
      value: measured(stats.discordMembers) ? count(stats.discordMembers) : null,
      note: measured(stats.discordMembers)
        ? 'Members of the chat community'
        : 'The chat community is not connected to this site, so its members are not counted',
    },
    {
      key: 'userSatisfaction',
      label: 'User Satisfaction',
      value: measured(satisfaction) ? `${satisfaction.toLocaleString('en-US', { maximumFractionDigits: 1 })}%` : null,
      note: measured(satisfaction)
        ? `From ${count(stats.ratingCount ?? 0)} command rating${stats.ratingCount === 1 ? '' : 's'} given by fans`
        : 'No fan has rated a command yet',
    },
    {
      key: 'targetedAudience',
      label: 'Targeted Audience',
      value: measured(stats.targetedAudience) ? count(stats.targetedAudience) : null,
      note: measured(stats.targetedAudience) ? 'Registered members of the site' : 'Not counted yet',
    },
  ];
}
