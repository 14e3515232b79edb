// The charts' time range: 24 hours, 7 days or 30 days, as a group of toggle buttons.
import type { ChartRange } from '../types';

const RANGES: Array<[ChartRange, string]> = [['24h', '24 hours'], ['7d', '7 days'], ['30d', '30 days']];

export function RangePicker({ value, onChange }: { value: ChartRange; onChange: (r: ChartRange) => void }) {
  return (
    <div className="range-picker" role="group" aria-label="Time range">
      {RANGES.map(([r, label]) => (
        <button key={r} type="button" className="button button-small" aria-pressed={value === r}
          onClick={() => onChange(r)}>{label}</button>
      ))}
    </div>
  );
}

/** A step's start as the tables show it: time of day for 24 hours, day and hour beyond. */
export function stepLabel(range: ChartRange): (iso: string) => string {
  const f = new Intl.DateTimeFormat(undefined, range === '24h'
    ? { hour: '2-digit', minute: '2-digit' } : { month: 'short', day: 'numeric', hour: '2-digit' });
  return (iso) => f.format(new Date(iso));
}
