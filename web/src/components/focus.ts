// Moving focus to new content, so keyboard and screen-reader users land on it (and hear its name) instead of
// staying on a control that is gone. Headings take focus with tabIndex={-1}.
import { useCallback, useRef } from 'react';

/** A ref callback: focuses the element once, when it appears. */
export function focusOnMount(el: HTMLElement | null): void {
  el?.focus();
}

/** Like focusOnMount, and focusable again on demand (after a save re-renders the form under the cursor). */
export function useFocusTarget<T extends HTMLElement>(): { ref: (el: T | null) => void; focus: () => void } {
  const current = useRef<T | null>(null);
  const ref = useCallback((el: T | null) => {
    if (el && el !== current.current) el.focus();
    current.current = el;
  }, []);
  return { ref, focus: () => current.current?.focus() };
}
