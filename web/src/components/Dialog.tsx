// A modal dialog on the native <dialog> element: focus is trapped, Escape closes it. Opening puts focus on the
// first field (else the first control in the body or footer, else the title), never on ×; closing, however it
// happens, puts focus back on the control that opened it (the element is unmounted, so the browser cannot).
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { focusOpener, openingFocus } from './focus';

interface Props {
  title: string;
  onClose: () => void;
  children: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  side?: boolean; // a panel sliding in from the right (details)
}

export function Dialog({ title, onClose, children, footer, wide, side }: Props) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    const opener = document.activeElement;
    if (dialog && !dialog.open) {
      dialog.showModal();
      openingFocus(dialog)?.focus();
    }
    return () => {
      dialog?.close();
      focusOpener(opener);
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog${wide ? ' dialog-wide' : ''}${side ? ' dialog-side' : ''}`}
      aria-labelledby={titleId}
      onCancel={(e) => { e.preventDefault(); onClose(); }}
      onClick={(e) => { if (e.target === ref.current) onClose(); }}
    >
      <div className="dialog-inner">
        <header className="dialog-header">
          <h2 id={titleId} tabIndex={-1}>{title}</h2>
          <button type="button" className="icon-button" aria-label="Close" onClick={onClose}>×</button>
        </header>
        <div className="dialog-body">{children}</div>
        {footer && <footer className="dialog-footer">{footer}</footer>}
      </div>
    </dialog>
  );
}
