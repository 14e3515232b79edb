// Moving focus to new content, so keyboard and screen-reader users land on it (and hear its name) instead of
// staying on a control that is gone. Headings take focus with tabIndex={-1}.

/** A ref callback: focuses the element once, when it appears. */
export function focusOnMount(el: HTMLElement | null): void {
  el?.focus();
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

/**
 * After a failed submit, wherever the problem was found (here or by the server): focus the first field marked
 * invalid, else the form's own error message, and bring its label, input and message into view. Call it once the
 * errors are rendered (flushSync). The user pressed a button at the form's end; the message may be far above it.
 */
export function focusFirstProblem(form: HTMLFormElement | null): void {
  const field = form?.querySelector<HTMLElement>('.field-invalid');
  const target = field?.querySelector<HTMLElement>(FIELD) ?? form?.querySelector<HTMLElement>('.form-error');
  if (!target) return;
  if (!field) target.tabIndex = -1;
  target.focus({ preventScroll: true });
  (field ?? target).scrollIntoView({ block: 'nearest' });
}
