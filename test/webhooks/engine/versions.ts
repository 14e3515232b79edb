// What the ordering suites read from a request: the booking and its version (carried in total_amount), and any
// pair of requests about one booking where an older version came after a newer one.
import type { Received } from './receiver.js';

/** The booking id and version (its total_amount, `<version>.00`) a request carried. */
export function versionOf(req: Received): { id: number; version: number } {
  const body = JSON.parse(req.raw.toString()) as { data: { id: number; total_amount: string } };
  return { id: body.data.id, version: Number.parseFloat(body.data.total_amount) };
}

/** Pairs of requests about one booking where a later request carried an older version. */
export function outOfOrder(requests: readonly Received[]): string[] {
  const last = new Map<number, number>();
  const bad: string[] = [];
  for (const req of requests) {
    const { id, version } = versionOf(req);
    if (version < (last.get(id) ?? 0)) bad.push(`booking ${id}: version ${version} after ${last.get(id)}`);
    last.set(id, Math.max(version, last.get(id) ?? 0));
  }
  return bad;
}
