// An on/off switch: a real checkbox with role="switch", so keyboards and screen readers handle it. While its change
// is being saved it says so (aria-busy, a dimmed track) and ignores further presses, but stays enabled: a disabled
// control drops keyboard focus.
interface Props {
  checked: boolean;
  onChange: (next: boolean) => void;
  label: string;
  busy?: boolean;
}

export function Switch({ checked, onChange, label, busy }: Props) {
  return (
    <label className="switch">
      <input type="checkbox" role="switch" checked={checked} aria-busy={busy || undefined} aria-label={label}
        onChange={(e) => { if (!busy) onChange(e.target.checked); }} />
      <span className="switch-track" aria-hidden="true"><span className="switch-thumb" /></span>
    </label>
  );
}
