// A small toast store with shadcn's use-toast semantics: at most TOAST_LIMIT toasts are kept, a toast is shown
// for TOAST_DURATION ms, a dismissed toast is closed at once (open:false) but stays in state until it is
// removed TOAST_REMOVE_DELAY ms later.
import { useEffect, useState } from 'react';

export const TOAST_LIMIT = 1;
export const TOAST_DURATION = 5_000;
export const TOAST_REMOVE_DELAY = 1_000_000;

export type ToastVariant = 'default' | 'destructive';

export interface ToastInput {
  title: string;
  description?: string;
  variant?: ToastVariant;
  /** Display time in ms; defaults to TOAST_DURATION. */
  duration?: number;
}

export interface ToastItem extends ToastInput {
  id: string;
  open: boolean;
}

export interface ToastState {
  toasts: ToastItem[];
}

export type ToastAction =
  | { type: 'ADD_TOAST'; toast: ToastItem }
  | { type: 'UPDATE_TOAST'; toast: Partial<ToastItem> & { id: string } }
  | { type: 'DISMISS_TOAST'; toastId?: string }
  | { type: 'REMOVE_TOAST'; toastId?: string };

/** Pure state transition. DISMISS/REMOVE without an id apply to every toast. */
export function toastReducer(state: ToastState, action: ToastAction): ToastState {
  switch (action.type) {
    case 'ADD_TOAST':
      return { toasts: [action.toast, ...state.toasts].slice(0, TOAST_LIMIT) };
    case 'UPDATE_TOAST':
      return { toasts: state.toasts.map((t) => (t.id === action.toast.id ? { ...t, ...action.toast } : t)) };
    case 'DISMISS_TOAST':
      return {
        toasts: state.toasts.map((t) => (action.toastId === undefined || t.id === action.toastId ? { ...t, open: false } : t)),
      };
    case 'REMOVE_TOAST':
      if (action.toastId === undefined) return { toasts: [] };
      return { toasts: state.toasts.filter((t) => t.id !== action.toastId) };
  }
}

let memory: ToastState = { toasts: [] };
const listeners = new Set<(state: ToastState) => void>();
const removeTimers = new Map<string, ReturnType<typeof setTimeout>>();
const displayTimers = new Map<string, ReturnType<typeof setTimeout>>();
let counter = 0;

function scheduleRemoval(id: string) {
  if (removeTimers.has(id)) return;
  removeTimers.set(
    id,
    setTimeout(() => {
      removeTimers.delete(id);
      dispatch({ type: 'REMOVE_TOAST', toastId: id });
    }, TOAST_REMOVE_DELAY),
  );
}

export function dispatch(action: ToastAction) {
  if (action.type === 'DISMISS_TOAST') {
    const ids = action.toastId === undefined ? memory.toasts.map((t) => t.id) : [action.toastId];
    for (const id of ids) {
      const timer = displayTimers.get(id);
      if (timer) clearTimeout(timer);
      displayTimers.delete(id);
      scheduleRemoval(id);
    }
  }
  memory = toastReducer(memory, action);
  for (const listener of listeners) listener(memory);
}

export function getToastState(): ToastState {
  return memory;
}

export function subscribeToasts(listener: (state: ToastState) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/** Shows a toast; returns its id and a dismiss function. */
export function toast(input: ToastInput): { id: string; dismiss: () => void } {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  const id = String(counter);
  const dismiss = () => dispatch({ type: 'DISMISS_TOAST', toastId: id });
  dispatch({ type: 'ADD_TOAST', toast: { variant: 'default', ...input, id, open: true } });
  displayTimers.set(id, setTimeout(dismiss, input.duration ?? TOAST_DURATION));
  return { id, dismiss };
}

/** Dismisses one toast, or all when no id is given. */
export function dismissToast(toastId?: string) {
  dispatch({ type: 'DISMISS_TOAST', toastId });
}

/** The current toasts, re-rendering on change. */
export function useToast() {
  const [state, setState] = useState<ToastState>(memory);
  useEffect(() => {
    setState(memory);
    return subscribeToasts(setState);
  }, []);
  return { toasts: state.toasts, toast, dismiss: dismissToast };
}
