// A filter bar's From / To fields (local date and time, sent as ISO 8601): the delivery log's and the audit log's.
import { toIso, toLocal } from '../format';

export function TimeRangeFields({ since, until, onChange }: {
  since: string | null; until: string | null; onChange: (change: { since: string } | { until: string }) => void;
}) {
  return (
    <>
      <label>
        <span className="field-label">From</span>
        <input type="datetime-local" aria-label="From" value={toLocal(since)}
          onChange={(e) => onChange({ since: toIso(e.target.value) })} />
      </label>
      <label>
        <span className="field-label">To</span>
        <input type="datetime-local" aria-label="To" value={toLocal(until)}
          onChange={(e) => onChange({ until: toIso(e.target.value) })} />
      </label>
    </>
  );
}
