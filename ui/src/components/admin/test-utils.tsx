// Test-only: a fetch mock routed by "METHOD /path" (or "/path" for any method) that records calls with their bodies.
import { vi } from 'vitest';
import { getToastState } from '../../lib/toast';

export type Reply = { status: number; body?: unknown };
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteFn = (body: any) => Reply | Promise<Reply> | Promise<never>;
export type ApiRoutes = Record<string, RouteFn | Reply | object | string | number | boolean | null>;

export interface Call {
  method: string;
  path: string;
  body: unknown;
}

const json = (status: number, body: unknown) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });

/** Replies: plain value = 200 JSON; {status, body} = that status; a function of the parsed body = computed reply. */
export function mockApi(routes: ApiRoutes) {
  const calls: Call[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
    const method = (init?.method ?? 'GET').toUpperCase();
    let body: unknown = undefined;
    if (typeof FormData !== 'undefined' && init?.body instanceof FormData) {
      body = init.body;
    } else if (typeof init?.body === 'string') {
      try {
        body = JSON.parse(init.body);
      } catch {
        body = init.body;
      }
    }
    calls.push({ method, path, body });
    const key = `${method} ${path}` in routes ? `${method} ${path}` : path in routes && method === 'GET' ? path : null;
    if (key === null) return json(404, { error: 'Not found' });
    let r: unknown = routes[key];
    if (typeof r === 'function') r = await (r as RouteFn)(body);
    if (r && typeof r === 'object' && 'status' in (r as object) && typeof (r as { status: unknown }).status === 'number') {
      const { status, body: b } = r as { status: number; body?: unknown };
      return json(status, b);
    }
    return json(200, r);
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls, callsTo: (method: string, path: string) => calls.filter((c) => c.method === method && c.path === path) };
}

export function lastToast() {
  return getToastState().toasts[0];
}
