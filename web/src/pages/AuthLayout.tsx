import type { ReactNode } from 'react';
import { useView } from '../components/view';

// Sign-in and setup: the page title names the step; the form's first field, not the heading, takes focus.
export function AuthLayout({ title, subtitle, children }: { title: string; subtitle: string; children: ReactNode }) {
  const heading = useView(title, { focus: false });
  return (
    <main className="auth">
      <div className="auth-card">
        <div className="brand brand-large"><span className="brand-mark" aria-hidden="true">W</span> Waypost</div>
        <h1 tabIndex={-1} ref={heading}>{title}</h1>
        <p className="muted">{subtitle}</p>
        {children}
      </div>
    </main>
  );
}
