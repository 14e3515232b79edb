// The charts' time ranges: how far back, which counter rows serve them and the step the chart shows. Shared by the
// webhook charts (stats/read.ts) and the API key usage chart (api/usage-series.ts).
import { invalidParameter } from '../../errors.js';
import type { ChartRange } from './views.js';
import { HOUR_MS, MINUTE_MS } from './counts.js';

export interface RangePlan {
  range: ChartRange;
  /** The first step's start and the end (ms), aligned to steps. */
  from: number;
  to: number;
  stepMs: number;
}

const RANGES: Record<ChartRange, { span: number; step: number; keyStep: number }> = {
  '24h': { span: 24 * HOUR_MS, step: 15 * MINUTE_MS, keyStep: HOUR_MS }, // minute rows: 96 points
  '7d': { span: 7 * 24 * HOUR_MS, step: 2 * HOUR_MS, keyStep: 2 * HOUR_MS }, // hour rows: 84 points
  '30d': { span: 30 * 24 * HOUR_MS, step: 12 * HOUR_MS, keyStep: 12 * HOUR_MS }, // hour rows: 60 points
};

/** The plan for `range` ending now (the step containing now included); a 400 naming `range` for anything else. */
export function planRange(range: unknown, nowMs: number, forKeys = false): RangePlan {
  const r = range === undefined || range === '' ? '24h' : range;
  if (typeof r !== 'string' || !Object.hasOwn(RANGES, r)) throw invalidParameter('range', 'must be 24h, 7d or 30d');
  const { span, step, keyStep } = RANGES[r as ChartRange];
  const stepMs = forKeys ? keyStep : step;
  const to = Math.floor(nowMs / stepMs) * stepMs + stepMs;
  return { range: r as ChartRange, from: to - span, to, stepMs };
}

/** The index of the step a bucket start falls in, or -1 outside the range. */
export function stepIndex(plan: RangePlan, bucketMs: number): number {
  if (bucketMs < plan.from || bucketMs >= plan.to) return -1;
  return Math.floor((bucketMs - plan.from) / plan.stepMs);
}

export function stepCount(plan: RangePlan): number {
  return Math.round((plan.to - plan.from) / plan.stepMs);
}
