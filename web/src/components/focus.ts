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

const FIELD = 'input:not([type=hidden]):not(:disabled), select:not(:disabled), textarea:not(:disabled)';
const CONTROL = `${FIELD}, button:not(:disabled), a[href], [tabindex="0"], summary`;

/** Where a just-opened dialog puts focus: its first field, else its first control past ×, else its title. */
export function openingFocus(dialog: HTMLElement): HTMLElement | null {
  const body = dialog.querySelector('.dialog-body');
  const footer = dialog.querySelector('.dialog-footer');
  return dialog.querySelector<HTMLElement>('[data-autofocus]')
    ?? body?.querySelector<HTMLElement>(FIELD)
    ?? body?.querySelector<HTMLElement>(CONTROL)
    ?? footer?.querySelector<HTMLElement>(CONTROL)
    ?? dialog.querySelector<HTMLElement>('h2');
}

/**
 * Back to the control that opened a dialog once it has closed. When that control is gone (the row was deleted,
 * the page changed), the page's heading takes focus, so focus never falls to <body>.
 */
export function focusOpener(opener: Element | null): void {
  const target = opener instanceof HTMLElement && opener.isConnected && opener !== document.body
    ? opener
    : document.querySelector<HTMLElement>('main h2[tabindex="-1"], main h1[tabindex="-1"], main');
  target?.focus();
}
