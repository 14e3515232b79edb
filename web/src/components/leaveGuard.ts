// Unsaved changes: a form with edits registers a guard, and following a console link, pressing Cancel or closing
// the browser tab asks first. Links are caught on click (capture phase), before the hash changes, so answering
// "stay" leaves the form exactly as it was.
import { useEffect, useRef } from 'react';

export const DISCARD_MESSAGE = 'You have unsaved changes. Leave this page and discard them?';

const guards = new Set<() => boolean>();

export function hasUnsavedChanges(): boolean {
  for (const dirty of guards) if (dirty()) return true;
  return false;
}

/** True when nothing unsaved would be lost, or the user agrees to discard it. */
export function confirmLeave(): boolean {
  return !hasUnsavedChanges() || window.confirm(DISCARD_MESSAGE);
}

function onClick(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const link = e.target instanceof Element ? e.target.closest('a[href]') : null;
  const href = link?.getAttribute('href') ?? '';
  if (!href.startsWith('#') || href === window.location.hash || link?.getAttribute('target') === '_blank') return;
  if (!confirmLeave()) {
    e.preventDefault();
    e.stopPropagation();
  }
}

function onBeforeUnload(e: BeforeUnloadEvent): void {
  if (!hasUnsavedChanges()) return;
  e.preventDefault();
  e.returnValue = ''; // older browsers need it set to show their own "leave site?" prompt
}

function register(guard: () => boolean): () => void {
  if (guards.size === 0) {
    document.addEventListener('click', onClick, true);
    window.addEventListener('beforeunload', onBeforeUnload);
  }
  guards.add(guard);
  return () => {
    guards.delete(guard);
    if (guards.size === 0) {
      document.removeEventListener('click', onClick, true);
      window.removeEventListener('beforeunload', onBeforeUnload);
    }
  };
}

/**
 * Guards a form while `dirty`. Call `leaving()` just before a deliberate exit (after a successful save, which
 * navigates away with the edits still in state) and `stay()` if that exit fails.
 */
export function useUnsavedChanges(dirty: boolean): { leaving: () => void; stay: () => void } {
  const state = useRef({ dirty, leaving: false });
  state.current.dirty = dirty;
  useEffect(() => register(() => state.current.dirty && !state.current.leaving), []);
  return { leaving: () => { state.current.leaving = true; }, stay: () => { state.current.leaving = false; } };
}
