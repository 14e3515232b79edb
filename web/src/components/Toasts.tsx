// Short confirmations ("Webhook saved") and errors, announced politely to screen readers. A modal <dialog> sits in
// the top layer, above any z-index, and makes the rest of the page inert: while one is open, the messages render
// inside the topmost open dialog, where they are seen above it and still announced. They stay clear of the control
// that caused them (placeFor).
import { createContext, useCallback, useContext, useEffect, useState, type ReactNode } from 'react';
import { createPortal } from 'react-dom';

interface Toast {
  id: number;
  text: string;
  tone: 'ok' | 'error';
}

const ToastContext = createContext<(text: string, tone?: Toast['tone']) => void>(() => {});

export const useToast = () => useContext(ToastContext);

/** The element the messages live in: the last open dialog, else the page. */
function useMessageHost(): HTMLElement {
  const [host, setHost] = useState<HTMLElement>(() => document.body);
  useEffect(() => {
    const update = () => setHost([...document.querySelectorAll<HTMLElement>('dialog[open]')].at(-1) ?? document.body);
    const observer = new MutationObserver(update);
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['open'] });
    update();
    return () => observer.disconnect();
  }, []);
  return host;
}

/**
 * Where a message goes so that it does not cover what it is about: the control just used (a Save button at the
 * bottom of a form, a secret's Regenerate) and what changed beside it. At the bottom of the screen, unless that
 * control is in the lower half; then at the top, under the bar.
 */
function placeFor(): 'top' | 'bottom' {
  const used = document.activeElement instanceof HTMLElement && document.activeElement !== document.body
    ? document.activeElement : lastPressed;
  if (!used?.isConnected) return 'bottom';
  const box = used.getBoundingClientRect();
  return box.top + box.height / 2 > window.innerHeight / 2 ? 'top' : 'bottom';
}

// The last control pressed: a button that starts a save is disabled while it runs, and a disabled button loses focus.
let lastPressed: HTMLElement | null = null;
if (typeof document !== 'undefined') {
  document.addEventListener('pointerdown', (e) => {
    const target = e.target instanceof Element ? e.target : null;
    lastPressed = target?.closest<HTMLElement>('button, a, input, label, summary') ?? null;
  }, true);
  document.addEventListener('keydown', () => {
    lastPressed = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  }, true);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [place, setPlace] = useState<'top' | 'bottom'>('bottom');
  const host = useMessageHost();
  const shown = toasts.length > 0;
  useEffect(() => {
    if (!shown) return;
    // Focus may move after the message (a saved form focuses its title): the message moves out of its way.
    const follow = () => setPlace(placeFor());
    document.addEventListener('focusin', follow);
    return () => document.removeEventListener('focusin', follow);
  }, [shown]);
  const show = useCallback((text: string, tone: Toast['tone'] = 'ok') => {
    const id = Date.now() + Math.random();
    setPlace(placeFor());
    setToasts((t) => [...t, { id, text, tone }]);
    // Errors stay longer: they usually say what to do next.
    window.setTimeout(() => setToasts((t) => t.filter((x) => x.id !== id)), tone === 'error' ? 8000 : 4000);
  }, []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      {createPortal(
        <div className={`toasts toasts-${place}`} role="status" aria-live="polite">
          {toasts.map((t) => <div key={t.id} className={`toast toast-${t.tone}`}>{t.text}</div>)}
        </div>,
        host,
      )}
    </ToastContext.Provider>
  );
}
