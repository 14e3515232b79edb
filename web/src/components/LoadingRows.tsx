// A list's placeholder while it loads: a few bars the height of its rows (cards on phones), so the page below does
// not jump when the rows arrive. Screen readers hear the label.
export function LoadingRows({ label, rows = 3 }: { label: string; rows?: number }) {
  return (
    <div className="skeleton-rows" aria-busy="true">
      <span className="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, i) => <span key={i} className="skeleton" aria-hidden="true" />)}
    </div>
  );
}
