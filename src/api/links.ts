// Pagination headers: X-Total-Count, X-Total-Pages and an RFC 8288 Link header with first/prev/next/last.
import type { ListPage } from './list.js';
import { MAX_OFFSET } from './list-tuning.js';
import type { ApiResource } from '../records/schemas.js';

export function paginationHeaders(
  baseUrl: string, query: Record<string, unknown>, page: ListPage<ApiResource>,
): Record<string, string> {
  const totalPages = page.total === null ? null : Math.max(Math.ceil(page.total / page.perpage), 1);
  const rest = Object.entries(query).filter(([k, v]) => v !== undefined && k !== 'page' && k !== 'after');
  const url = (extra: Record<string, string | number>) => {
    const params = new URLSearchParams(rest.map(([k, v]) => [k, String(v)]));
    for (const [k, v] of Object.entries(extra)) params.set(k, String(v));
    const qs = params.toString();
    return qs ? `${baseUrl}?${qs}` : baseUrl;
  };
  const reachable = (n: number) => (n - 1) * page.perpage <= MAX_OFFSET;
  const links: Array<[string, string]> = [];
  if (page.page !== null) {
    if (page.hasMore && reachable(page.page + 1)) links.push(['next', url({ page: page.page + 1 })]);
    if (page.page > 1) links.push(['prev', url({ page: Math.min(page.page - 1, totalPages ?? page.page - 1) })]);
  } else if (page.nextCursor) {
    links.push(['next', url({ after: page.nextCursor })]);
  }
  links.push(['first', url({ page: 1 })]);
  // `last` only when it is known and a page number reaches it (else follow `next`, which uses `after`).
  if (totalPages !== null && reachable(totalPages)) links.push(['last', url({ page: totalPages })]);
  const headers: Record<string, string> = { Link: links.map(([rel, u]) => `<${u}>; rel="${rel}"`).join(', ') };
  if (page.total !== null && totalPages !== null) {
    headers['X-Total-Count'] = String(page.total);
    headers['X-Total-Pages'] = String(page.total === 0 ? 0 : totalPages);
  }
  return headers;
}
