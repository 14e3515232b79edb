// The summaries the bridge benchmark reports.

export const round1 = (n: number) => Number(n.toFixed(1));

/** Nearest-rank percentile. */
export function pct(values: number[], p: number): number {
  const s = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export function summary(values: number[]) {
  const v = values.filter((x) => Number.isFinite(x));
  return {
    median: round1(pct(v, 50)),
    p90: round1(pct(v, 90)),
    min: round1(Math.min(...v)),
    max: round1(Math.max(...v)),
    mean: round1(v.reduce((a, b) => a + b, 0) / v.length),
    n: v.length,
  };
}
export type Summary = ReturnType<typeof summary>;

/** The middle item by a key (the upper one of an even count). */
export const medianBy = <T>(list: T[], key: (x: T) => number) =>
  [...list].sort((x, y) => key(x) - key(y))[Math.floor(list.length / 2)];
