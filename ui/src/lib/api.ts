// The one HTTP client of the app. Every call sends cookies; JSON bodies carry a JSON content type.
// A response that is not ok becomes an ApiError whose message is "<status>: <body text or status text>".

export class ApiError extends Error {
  readonly status: number;
  /** The server's `error` sentence when the body was the JSON error shape. */
  readonly serverError?: string;
  /** The server's optional `message` detail. */
  readonly serverMessage?: string;
  readonly fields?: Record<string, string>;

  constructor(status: number, statusText: string, bodyText: string) {
    super(`${status}: ${bodyText || statusText}`);
    this.name = 'ApiError';
    this.status = status;
    try {
      const body = JSON.parse(bodyText);
      if (body && typeof body === 'object') {
        if (typeof body.error === 'string') this.serverError = body.error;
        if (typeof body.message === 'string') this.serverMessage = body.message;
        if (body.fields && typeof body.fields === 'object') this.fields = body.fields;
      }
    } catch {
      // not JSON: the message above already carries the text
    }
  }
}

export async function throwIfNotOk(res: Response): Promise<void> {
  if (!res.ok) {
    const text = await res.text();
    throw new ApiError(res.status, res.statusText, text);
  }
}

export async function apiRequest<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<T> {
  const isForm = typeof FormData !== 'undefined' && body instanceof FormData;
  const res = await fetch(path, {
    method,
    credentials: 'include',
    // Always ask the server (with the ETag): public answers allow stale-while-revalidate for
    // shared caches, and Chrome would otherwise answer from its own stale copy.
    cache: 'no-cache',
    headers: body !== undefined && !isForm ? { 'Content-Type': 'application/json', ...headers } : headers,
    body: body === undefined ? undefined : isForm ? (body as FormData) : JSON.stringify(body),
  });
  await throwIfNotOk(res);
  if (res.status === 204) return undefined as T;
  const type = res.headers.get('content-type') ?? '';
  return (type.includes('application/json') ? await res.json() : await res.text()) as T;
}

export type UnauthorizedBehavior = 'throw' | 'returnNull';

/** Default loader for queries: GET the query key joined as a path, parse JSON. */
export function getQueryFn<T>(options: { on401: UnauthorizedBehavior } = { on401: 'throw' }) {
  return async ({ queryKey }: { queryKey: readonly unknown[] }): Promise<T | null> => {
    const path = queryKey.filter((part) => typeof part === 'string' || typeof part === 'number').join('/');
    const res = await fetch(path, { credentials: 'include', cache: 'no-cache' });
    if (options.on401 === 'returnNull' && res.status === 401) return null;
    await throwIfNotOk(res);
    return (await res.json()) as T;
  };
}

/** The sentence to show for a failed call: the server's `error`, else the fallback. */
export function errorSentence(err: unknown, fallback: string): string {
  if (err instanceof ApiError && err.serverError) return err.serverError;
  return fallback;
}
