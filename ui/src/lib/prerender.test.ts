import { describe, expect, it } from 'vitest';
import { initialOf, tokensWellFormed } from './prerender';

describe('prerender helpers', () => {
  it('takes the first character, whole code points included', () => {
    expect(initialOf('Election Hub')).toBe('E');
    expect(initialOf('🎮 Hub')).toBe('🎮');
    expect(initialOf('')).toBe('');
  });
  it('turns a token into the token of its initial', () => {
    expect(initialOf('\u27e6shortName\u27e7')).toBe('\u27e6shortName|initial\u27e7');
  });
  it('accepts only well-formed tokens', () => {
    expect(tokensWellFormed('<h1>\u27e6hero.title\u27e7</h1><span>\u27e6shortName|initial\u27e7</span>')).toBe(true);
    expect(tokensWellFormed('<span>\u27e6</span>')).toBe(false);
    expect(tokensWellFormed('\u27e6hero.title')).toBe(false);
    expect(tokensWellFormed('\u27e6name|upper\u27e7')).toBe(false);
  });
});
