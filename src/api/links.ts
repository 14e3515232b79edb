// Pagination headers: X-Total-Count, X-Total-Pages and an RFC 8288 Link header with first/prev/next/last.
import type { ListPage } from './list.js';
import type { ApiResource } from '../records/schemas.js';

export function paginationHeaders(baseUrl: string, query: Record<string, unknown>, page: ListPage<ApiResource>): Record<string, string> {
  const totalPages = Math.ceil(page.total / page.perpage);
  const rest = Object.entries(query).filter(([k, v]) => v !== undefined && k !== 'page' && k !== 'after');
  const url = (extra: Record<string, string | number>) => {
    const params = new URLSearchParams(rest.map(([k, v]) => [k, String(v)]));
    for (const [k, v] of Object.entries(extra)) params.set(k, String(v));
    const qs = params.toString();
    return qs ? `${baseUrl}?${qs}` : baseUrl;
  };
  const links: Array<[string, string]> = [];
  if (page.page !== null) {
    if (page.page < totalPages) links.push(['next', url({ page: page.page + 1 })]);
    if (page.page > 1) links.push(['prev', url({ page: Math.min(page.page - 1, Math.max(totalPages, 1)) })]);
  } else if (page.nextCursor) {
    links.push(['next', url({ after: page.nextCursor })]);
  }
  links.push(['first', url({ page: 1 })]);
  links.push(['last', url({ page: Math.max(totalPages, 1) })]);
  return {
    'X-Total-Count': String(page.total),
    'X-Total-Pages': String(totalPages),
    Link: links.map(([rel, u]) => `<${u}>; rel="${rel}"`).join(', '),
  };
}
