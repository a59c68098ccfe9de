import { describe, expect, it } from 'vitest';
import { findSearchInput, isTypingTarget, matchShortcut, type KeyLike } from './shortcuts';

const key = (k: Partial<KeyLike> & { key: string }): KeyLike => ({
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...k,
});

describe('matchShortcut', () => {
  it('Ctrl/Cmd+K focuses search unless typing', () => {
    expect(matchShortcut(key({ key: 'k', ctrlKey: true }), false)).toEqual({ type: 'focus-search' });
    expect(matchShortcut(key({ key: 'k', metaKey: true }), false)).toEqual({ type: 'focus-search' });
    expect(matchShortcut(key({ key: 'K', ctrlKey: true }), false)).toEqual({ type: 'focus-search' });
    expect(matchShortcut(key({ key: 'k', ctrlKey: true }), true)).toBeNull();
    expect(matchShortcut(key({ key: 'k' }), false)).toBeNull();
    expect(matchShortcut(key({ key: 'k', ctrlKey: true, altKey: true }), false)).toBeNull();
  });
  it('Ctrl/Cmd+? and Ctrl/Cmd+Shift+/ open the shortcuts panel', () => {
    expect(matchShortcut(key({ key: '?', ctrlKey: true, shiftKey: true }), false)).toEqual({ type: 'open-shortcuts' });
    expect(matchShortcut(key({ key: '?', metaKey: true, shiftKey: true }), true)).toEqual({ type: 'open-shortcuts' });
    expect(matchShortcut(key({ key: '/', code: 'Slash', ctrlKey: true, shiftKey: true }), false)).toEqual({ type: 'open-shortcuts' });
    expect(matchShortcut(key({ key: '/', ctrlKey: true }), false)).toBeNull();
    expect(matchShortcut(key({ key: '?', shiftKey: true }), false)).toBeNull();
  });
  it('Alt+1..4 navigate', () => {
    expect(matchShortcut(key({ key: '1', code: 'Digit1', altKey: true }), false)).toEqual({ type: 'navigate', path: '/' });
    expect(matchShortcut(key({ key: '2', altKey: true }), false)).toEqual({ type: 'navigate', path: '/commands' });
    expect(matchShortcut(key({ key: '™', code: 'Digit3', altKey: true }), false)).toEqual({ type: 'navigate', path: '/guides' });
    expect(matchShortcut(key({ key: '4', code: 'Digit4', altKey: true }), true)).toEqual({ type: 'navigate', path: '/community' });
    expect(matchShortcut(key({ key: '5', code: 'Digit5', altKey: true }), false)).toBeNull();
    expect(matchShortcut(key({ key: '1', code: 'Digit1' }), false)).toBeNull();
    expect(matchShortcut(key({ key: '1', code: 'Digit1', altKey: true, ctrlKey: true }), false)).toBeNull();
  });
  it('Esc closes panels', () => {
    expect(matchShortcut(key({ key: 'Escape' }), true)).toEqual({ type: 'escape' });
  });
  it('ignores other keys', () => {
    expect(matchShortcut(key({ key: 'a' }), false)).toBeNull();
    expect(matchShortcut(key({ key: 'c', ctrlKey: true }), false)).toBeNull();
  });
});

describe('isTypingTarget', () => {
  it('recognises text fields', () => {
    const input = document.createElement('input');
    const checkbox = document.createElement('input');
    checkbox.type = 'checkbox';
    const div = document.createElement('div');
    const editable = document.createElement('div');
    editable.setAttribute('contenteditable', 'true');
    expect(isTypingTarget(input)).toBe(true);
    expect(isTypingTarget(document.createElement('textarea'))).toBe(true);
    expect(isTypingTarget(checkbox)).toBe(false);
    expect(isTypingTarget(div)).toBe(false);
    expect(isTypingTarget(editable)).toBe(true);
    expect(isTypingTarget(null)).toBe(false);
  });
});

describe('findSearchInput', () => {
  it('finds the marked input', () => {
    const root = document.createElement('div');
    root.innerHTML = '<input id="a"><input id="b" data-search-input>';
    document.body.append(root);
    expect(findSearchInput()?.id).toBe('b');
    root.remove();
    expect(findSearchInput()).toBeNull();
  });
});
