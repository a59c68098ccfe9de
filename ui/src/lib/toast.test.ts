import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  TOAST_DURATION,
  TOAST_REMOVE_DELAY,
  dismissToast,
  getToastState,
  toast,
  toastReducer,
  type ToastItem,
} from './toast';

const item = (id: string, open = true): ToastItem => ({ id, title: `t${id}`, open });

describe('toastReducer', () => {
  it('keeps at most one toast, newest first', () => {
    let s = toastReducer({ toasts: [] }, { type: 'ADD_TOAST', toast: item('1') });
    s = toastReducer(s, { type: 'ADD_TOAST', toast: item('2') });
    expect(s.toasts.map((t) => t.id)).toEqual(['2']);
  });
  it('updates by id', () => {
    const s = toastReducer({ toasts: [item('1')] }, { type: 'UPDATE_TOAST', toast: { id: '1', title: 'new' } });
    expect(s.toasts[0].title).toBe('new');
  });
  it('dismiss closes but keeps the toast', () => {
    const s = toastReducer({ toasts: [item('1')] }, { type: 'DISMISS_TOAST', toastId: '1' });
    expect(s.toasts).toEqual([{ ...item('1'), open: false }]);
    const all = toastReducer({ toasts: [item('1'), item('2')] }, { type: 'DISMISS_TOAST' });
    expect(all.toasts.every((t) => !t.open)).toBe(true);
  });
  it('remove drops by id or all', () => {
    expect(toastReducer({ toasts: [item('1'), item('2')] }, { type: 'REMOVE_TOAST', toastId: '1' }).toasts.map((t) => t.id)).toEqual(['2']);
    expect(toastReducer({ toasts: [item('1')] }, { type: 'REMOVE_TOAST' }).toasts).toEqual([]);
  });
  it('does not mutate the input', () => {
    const before = { toasts: [item('1')] };
    toastReducer(before, { type: 'DISMISS_TOAST', toastId: '1' });
    expect(before.toasts[0].open).toBe(true);
  });
});

describe('toast store', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows for 5000 ms, then closes and is removed after the removal delay', () => {
    const { id } = toast({ title: 'Saved', description: 'd' });
    expect(getToastState().toasts[0]).toMatchObject({ id, title: 'Saved', open: true, variant: 'default' });
    vi.advanceTimersByTime(TOAST_DURATION - 1);
    expect(getToastState().toasts[0].open).toBe(true);
    vi.advanceTimersByTime(1);
    expect(getToastState().toasts[0].open).toBe(false);
    vi.advanceTimersByTime(TOAST_REMOVE_DELAY - 1);
    expect(getToastState().toasts).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(getToastState().toasts).toHaveLength(0);
  });

  it('a dismissed toast closes immediately', () => {
    const t = toast({ title: 'Oops', variant: 'destructive' });
    t.dismiss();
    expect(getToastState().toasts[0]).toMatchObject({ id: t.id, open: false, variant: 'destructive' });
    dismissToast();
    vi.advanceTimersByTime(TOAST_REMOVE_DELAY);
    expect(getToastState().toasts).toHaveLength(0);
  });
});
