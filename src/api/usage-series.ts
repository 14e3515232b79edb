// An API key's calls over 24 h / 7 d / 30 d by status class (the console's usage chart), from api_usage_hours: the
// key's hour rows in the range, one index range (src/api/usage.ts keeps them in the write path).
import type { Core } from '../core.js';
import { notFound } from '../errors.js';
import { planRange, stepCount, stepIndex } from '../webhooks/stats/range.js';
import type { KeyUsageSeries, UsagePoint } from '../webhooks/stats/views.js';

type Counts = Omit<UsagePoint, 'start'>;
const COLUMNS = ['ok', 'client_errors', 'rate_limited', 'server_errors'] as const;
const zero = (): Counts => ({ ok: 0, client_errors: 0, rate_limited: 0, server_errors: 0 });

/** The key's hour rows in [from, to): one range of the primary key. */
export function hourRows(core: Core, keyId: string, from: number, to: number) {
  return core.db.selectFrom('api_usage_hours').selectAll()
    .where('key_id', '=', keyId).where('hour', '>=', from).where('hour', '<', to);
}

/** GET /admin/api/keys/:id/usage/series?range=24h|7d|30d */
export async function keyUsageSeries(core: Core, keyId: string, range: unknown): Promise<KeyUsageSeries> {
  const plan = planRange(range, core.clock.now(), true);
  const key = await core.db.selectFrom('api_keys').select('id').where('id', '=', keyId).executeTakeFirst();
  if (!key) throw notFound(`API key ${keyId}`);
  const rows = await hourRows(core, keyId, plan.from, plan.to).execute();
  const steps = Array.from({ length: stepCount(plan) }, zero);
  const totals = zero();
  for (const row of rows) {
    const i = stepIndex(plan, Number(row.hour));
    if (i < 0) continue;
    for (const c of COLUMNS) {
      steps[i][c] += Number(row[c]);
      totals[c] += Number(row[c]);
    }
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    key_id: keyId, range: plan.range, step_s: plan.stepMs / 1000, from: iso(plan.from), to: iso(plan.to),
    points: steps.map((s, i) => ({ start: iso(plan.from + i * plan.stepMs), ...s })), totals,
  };
}
