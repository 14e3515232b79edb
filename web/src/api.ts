// The console's one HTTP client: same-origin fetch with the session cookie, the CSRF token on every state change,
// and problem+json errors turned into ApiError (with the field the server named, for inline messages).

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly field: string | null) {
    super(message);
  }
}

let csrfToken: string | null = null;
const unauthorizedListeners = new Set<() => void>();

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the session ends (401): the app shows the sign-in page. */
export function onUnauthorized(listener: () => void): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** "url: must be…" → "must be…": the field is shown next to the input already. */
function cleanDetail(detail: string, field: string | null): string {
  const text = field && detail.startsWith(`${field}: `) ? detail.slice(field.length + 2) : detail;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let res: Response;
  try {
    res = await fetch(`/admin/api${path}`, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'network_error',
      'Waypost could not be reached. Check that it is running, then try again.', null);
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : undefined;
  if (!res.ok) {
    const p = (data ?? {}) as { code?: string; detail?: string; title?: string; field?: string; parameter?: string };
    const field = p.field ?? p.parameter ?? null;
    if (res.status === 401 && path !== '/session') unauthorizedListeners.forEach((l) => l());
    const detail = cleanDetail(p.detail ?? p.title ?? `Request failed (${res.status})`, field);
    throw new ApiError(res.status, p.code ?? 'error', detail, field);
  }
  return data as T;
}

export const get = <T>(path: string) => api<T>('GET', path);
export const post = <T>(path: string, body?: unknown) => api<T>('POST', path, body);
export const put = <T>(path: string, body?: unknown) => api<T>('PUT', path, body);
export const patch = <T>(path: string, body?: unknown) => api<T>('PATCH', path, body);
export const del = <T>(path: string) => api<T>('DELETE', path);

export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}
