// Hash routing (#/webhooks, #/keys, #/logs, #/settings, #/account, #/login, #/setup?token=…): the server serves one
// page.
import { useEffect, useState } from 'react';

export interface Route {
  path: string[]; // "#/webhooks/wh_1" → ['webhooks', 'wh_1']
  params: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '');
  const [pathPart = '', queryPart = ''] = raw.split('?');
  return { path: pathPart.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(queryPart) };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Goes to a route; `replace` for redirects, so Back does not return to a page that redirects again. */
export function navigate(path: string, { replace = false } = {}): void {
  const hash = path.startsWith('#') ? path : `#${path}`;
  if (replace) window.location.replace(hash);
  else window.location.hash = hash;
}

const AUTH_PAGES = ['', 'login', 'setup'];

/** The page asked for (e.g. an alert e-mail's #/logs?delivery=…), to return to after sign-in or setup. */
export function requestedPage(route: Route): string | null {
  return AUTH_PAGES.includes(route.path[0] ?? '') ? null : window.location.hash.replace(/^#/, '');
}

/** A `next` parameter made safe to follow: a console route only (never another site, never sign-in again). */
export function returnTo(next: string | null): string | null {
  if (!next || !next.startsWith('/') || next.startsWith('//')) return null;
  return AUTH_PAGES.includes(parseHash(next).path[0] ?? '') ? null : next;
}
