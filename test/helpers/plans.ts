// Query plans for the plan tests (a query that must cost O(page) shows it in its plan): SQLite's EXPLAIN QUERY PLAN
// lines, and PostgreSQL's plan as nodes (EXPLAIN (FORMAT JSON)) or as text.
import { CompiledQuery, sql } from 'kysely';
import type { Waypost } from '../../src/sdk.js';

type Query = { sql: string; parameters: readonly unknown[] };

export interface PlanNode { 'Node Type': string; 'Relation Name'?: string; 'Index Name'?: string; Plans?: PlanNode[] }

/** The node and every node below it, depth first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

/** SQLite: the `detail` of each EXPLAIN QUERY PLAN row. */
export function sqlitePlan(wp: Waypost, query: Query): string[] {
  return (wp.core.store.sqlite!.prepare(`EXPLAIN QUERY PLAN ${query.sql}`).all(...query.parameters as unknown[]) as
    Array<{ detail: string }>).map((r) => r.detail);
}

/** PostgreSQL: every node of the plan (EXPLAIN (FORMAT JSON)). */
export async function pgPlanNodes(wp: Waypost, query: Query): Promise<PlanNode[]> {
  const { rows } = await wp.core.db.executeQuery(
    CompiledQuery.raw(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.parameters]));
  return planNodes(((rows[0] as Record<string, unknown>)['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0].Plan);
}

/**
 * PostgreSQL: the plan as text, with `off` planner methods disabled for it (default: sequential and bitmap scans and
 * sorts), so that the plan shows what the indexes allow whatever the table's size.
 */
export async function pgPlanText(wp: Waypost, query: Query, off = ['seqscan', 'sort', 'bitmapscan']):
Promise<string> {
  return wp.core.db.transaction().execute(async (trx) => {
    for (const o of off) await sql.raw(`SET LOCAL enable_${o} = off`).execute(trx);
    const { rows } = await trx.executeQuery(CompiledQuery.raw(`EXPLAIN ${query.sql}`, [...query.parameters]));
    return (rows as Array<{ 'QUERY PLAN': string }>).map((r) => r['QUERY PLAN']).join('\n');
  });
}
