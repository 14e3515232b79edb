// Every view says where you are: the tab's title names it ("Webhooks · Waypost"), and moving to another view puts
// focus on its heading (tabIndex={-1}), so screen readers announce it and Tab continues from there. The first view
// of a visit keeps the browser's focus, and a view's own changes (filters, pages, the drawer) move nothing.
import { useCallback, useEffect, useRef } from 'react';

// The view whose heading came up last, by title: a redirect or a re-render of the same view is not a new view.
let shownView: string | null = null;

/**
 * Sets document.title to "`title` · Waypost" and returns a ref for the view's heading. `focus: false` for views
 * whose first field takes focus instead (sign-in, setup).
 */
export function useView(title: string, { focus = true } = {}): (heading: HTMLElement | null) => void {
  const current = useRef(title);
  current.current = title;
  useEffect(() => {
    document.title = `${title} · Waypost`;
  }, [title]);
  return useCallback((heading: HTMLElement | null) => {
    if (!heading) return;
    if (focus && shownView !== null && shownView !== current.current) heading.focus();
    shownView = current.current;
  }, [focus]);
}
