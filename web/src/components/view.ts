// Every view says where you are: the tab's title names it ("Webhooks · Waypost"), and moving to another view puts
// focus on its heading (tabIndex={-1}), so screen readers announce it and Tab continues from there. The first view
// of a visit keeps the browser's focus, and a view's own changes (filters, pages, the drawer) move nothing.
import { useCallback, useEffect } from 'react';

let shownPath: string | null = null; // the route path whose view last came up, null before the first

const routePath = () => window.location.hash.split('?')[0] || '#/';

/**
 * Sets document.title to "`title` · Waypost" and returns a ref for the view's heading. `focus: false` for views
 * whose first field takes focus instead (sign-in, setup).
 */
export function useView(title: string, { focus = true } = {}): (heading: HTMLElement | null) => void {
  useEffect(() => {
    document.title = `${title} · Waypost`;
  }, [title]);
  return useCallback((heading: HTMLElement | null) => {
    if (!heading) return;
    const path = routePath();
    if (focus && shownPath !== null && shownPath !== path) heading.focus();
    shownPath = path;
  }, [focus]);
}
