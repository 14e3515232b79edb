// Previous / next page controls with "1–25 of 230".
export function Pagination({ page, perpage, total, onPage }: {
  page: number; perpage: number; total: number; onPage: (p: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perpage));
  const from = total === 0 ? 0 : (page - 1) * perpage + 1;
  const to = Math.min(total, page * perpage);
  return (
    <nav className="pagination" aria-label="Pagination">
      <span className="muted">{total === 0 ? 'No results' : `${from}–${to} of ${total}`}</span>
      <div className="pagination-buttons">
        <button type="button" className="button button-small" disabled={page <= 1}
          onClick={() => onPage(page - 1)}>Previous</button>
        <span className="muted">Page {page} of {pages}</span>
        <button type="button" className="button button-small" disabled={page >= pages}
          onClick={() => onPage(page + 1)}>Next</button>
      </div>
    </nav>
  );
}

/**
 * Newest / Older controls of a list paged by cursor (newest first, `after` the last page's `next`): shown once there is
 * more than one page. `what` names the items ("events": "Older events").
 */
export function CursorPagination({ what, after, next, onAfter }: {
  what: string; after: string | null; next: string | null; onAfter: (after: string | null) => void;
}) {
  if (!after && !next) return null;
  return (
    <nav className="pagination" aria-label="Pagination">
      <span className="muted">{after ? `Older ${what}` : `Newest ${what}`}</span>
      <div className="pagination-buttons">
        <button type="button" className="button button-small" disabled={!after}
          onClick={() => onAfter(null)}>Newest</button>
        <button type="button" className="button button-small" disabled={!next}
          onClick={() => onAfter(next)}>Older</button>
      </div>
    </nav>
  );
}
