import { describe, expect, it } from 'vitest';
import {
  EMPTY_AD_FORM,
  MAX_LINKS,
  addLink,
  adFormData,
  audienceFigures,
  isMissingRequired,
  missingFields,
  REQUIRED_MESSAGES,
  isPremium,
  removeLink,
  setLink,
  submittedLinks,
  type AdFormValues,
} from './ads';
import { stats } from '../test/helpers';

const png = () => new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'ad.png', { type: 'image/png' });
const filled: AdFormValues = {
  ...EMPTY_AD_FORM,
  websiteUrl: '  https://shop.example.com  ',
  adDescription: ' Blocks for builders ',
  targetAudience: 'game-developers',
  links: ['https://a.example.com', '  ', 'https://b.example.com '],
};

describe('additional links', () => {
  it('adds an empty field, up to the server limit', () => {
    expect(addLink([''])).toEqual(['', '']);
    const full = Array.from({ length: MAX_LINKS }, (_, i) => `https://x${i}.example.com`);
    expect(addLink(full)).toEqual(full);
  });

  it('removes by index; removing the last one leaves one empty field', () => {
    expect(removeLink(['a', 'b', 'c'], 1)).toEqual(['a', 'c']);
    expect(removeLink(['a'], 0)).toEqual(['']);
    expect(removeLink([''], 0)).toEqual(['']);
  });

  it('edits one entry and drops empty ones on submit', () => {
    expect(setLink(['a', 'b'], 1, 'z')).toEqual(['a', 'z']);
    expect(submittedLinks([' https://a.example.com ', '', '   ', 'https://b.example.com'])).toEqual([
      'https://a.example.com',
      'https://b.example.com',
    ]);
  });
});

describe('required fields', () => {
  it('needs the website URL, the description and the image', () => {
    expect(isMissingRequired(filled, png())).toBe(false);
    expect(isMissingRequired(filled, null)).toBe(true);
    expect(isMissingRequired({ ...filled, websiteUrl: '   ' }, png())).toBe(true);
    expect(isMissingRequired({ ...filled, adDescription: '' }, png())).toBe(true);
  });
  it('names each empty required field with the message shown at it', () => {
    expect(missingFields(filled, png())).toEqual({});
    expect(missingFields({ ...filled, websiteUrl: ' ', adDescription: '' }, null)).toEqual(REQUIRED_MESSAGES);
    expect(Object.keys(missingFields(filled, null))).toEqual(['image']);
  });
});

describe('adFormData (the seven parts of the advertise form)', () => {
  it('sends the fields, the links as a JSON array without empty entries, and the image', () => {
    const image = png();
    const form = adFormData(filled, image);
    expect(form.get('websiteUrl')).toBe('https://shop.example.com');
    expect(form.get('adDescription')).toBe('Blocks for builders');
    expect(form.get('targetAudience')).toBe('game-developers');
    expect(form.get('duration')).toBe('1-day');
    expect(JSON.parse(form.get('links') as string)).toEqual(['https://a.example.com', 'https://b.example.com']);
    expect((form.get('image') as File).name).toBe('ad.png');
    expect(form.has('premiumFullscreen')).toBe(false);
    expect(form.has('fullscreenMessageType')).toBe(false);
    expect(form.has('fullscreenCustomMessage')).toBe(false);
  });

  it('leaves out an unchosen target audience', () => {
    expect(adFormData({ ...filled, targetAudience: '' }, png()).has('targetAudience')).toBe(false);
  });

  it('premium options only count with 10-fullscreen', () => {
    const notPremium = adFormData({ ...filled, duration: '1-month', messageType: 'user-input', customMessage: 'Hi' }, png());
    expect(notPremium.has('premiumFullscreen')).toBe(false);
    expect(notPremium.has('fullscreenCustomMessage')).toBe(false);

    const ai = adFormData({ ...filled, duration: '10-fullscreen', customMessage: 'typed then switched back' }, png());
    expect(ai.get('premiumFullscreen')).toBe('true');
    expect(ai.get('fullscreenMessageType')).toBe('ai-generated');
    expect(ai.has('fullscreenCustomMessage')).toBe(false);

    const own = adFormData({ ...filled, duration: '10-fullscreen', messageType: 'user-input', customMessage: ' Play now! ' }, png());
    expect(own.get('fullscreenMessageType')).toBe('user-input');
    expect(own.get('fullscreenCustomMessage')).toBe('Play now!');
    expect(isPremium('10-fullscreen')).toBe(true);
    expect(isPremium('1-day')).toBe(false);
  });
});

describe('audienceFigures', () => {
  it('shows measured figures and leaves unmeasured ones absent with the reason', () => {
    const figures = audienceFigures({ ...stats, monthlyVisitors: 12345, discordMembers: null, userSatisfaction: 87.5, ratingCount: 16, targetedAudience: 42 });
    const by = Object.fromEntries(figures.map((f) => [f.key, f]));
    expect(figures.map((f) => f.label)).toEqual(['Monthly Visitors', 'Discord Members', 'User Satisfaction', 'Targeted Audience']);
    expect(by.monthlyVisitors.value).toBe('12,345');
    expect(by.discordMembers.value).toBeNull();
    expect(by.discordMembers.note).toMatch(/not connected/);
    expect(by.userSatisfaction.value).toBe('87.5%');
    expect(by.userSatisfaction.note).toBe('From 16 command ratings given by fans');
    expect(by.targetedAudience.value).toBe('42');
  });

  it('never turns a missing figure into a number', () => {
    const figures = audienceFigures({ ...stats, discordMembers: 310, userSatisfaction: null, ratingCount: 0 });
    const by = Object.fromEntries(figures.map((f) => [f.key, f]));
    expect(by.discordMembers.value).toBe('310');
    expect(by.userSatisfaction.value).toBeNull();
    expect(by.userSatisfaction.note).toBe('No fan has rated a command yet');
    expect(by.userSatisfaction.note).not.toMatch(/\d/);
  });
});
