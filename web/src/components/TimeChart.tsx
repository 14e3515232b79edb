// A time-series chart (uPlot: 50 KB minified, canvas, fast with hundreds of points; see docs/getting-started.md)
// with its text alternative: "Show table" swaps the canvas for a table of the same numbers. The canvas is sized
// to its container, so it fits a 390 px screen; the legend is uPlot's, under the chart.
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartSeries {
  label: string;
  color: string;
  values: Array<number | null>;
  dash?: number[];
  /** Dots at each value: a series with gaps (latency has none where nothing was sent) may have lone points. */
  points?: boolean;
}

interface Props {
  /** The chart's name: its caption, the table's caption and the canvas' accessible name. */
  title: string;
  /** Each step's start (ISO 8601). */
  starts: string[];
  series: ChartSeries[];
  /** How a value reads in the table and on the axis ("12", "250 ms"). */
  format?: (v: number) => string;
  /** How a step's start reads in the table. */
  formatStart: (iso: string) => string;
}

export function TimeChart({ title, starts, series, format = String, formatStart }: Props) {
  const [asTable, setAsTable] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el || asTable) return;
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot({
      width: width(),
      height: 200,
      series: [{}, ...series.map((s) => ({
        label: s.label, stroke: s.color, width: 2, dash: s.dash, spanGaps: false,
        ...(s.points ? { points: { show: true, size: 6, fill: s.color } } : {}),
        value: (_u: uPlot, v: number | null) => (v === null ? '—' : format(v)),
      }))],
      axes: [{}, { values: (_u, ticks) => ticks.map((t) => format(t)), size: 60 }],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      cursor: { drag: { x: false, y: false } },
    }, [starts.map((s) => Date.parse(s) / 1000), ...series.map((s) => s.values)] as uPlot.AlignedData, el);
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 200 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [asTable, starts, series, format]);

  const total = (s: ChartSeries) => s.values.reduce<number>((n, v) => n + (v ?? 0), 0);
  return (
    <figure className="chart">
      <div className="chart-head">
        <figcaption className="strong">{title}</figcaption>
        <button type="button" className="button button-small" aria-pressed={asTable}
          onClick={() => setAsTable(!asTable)}>{asTable ? 'Show chart' : 'Show table'}</button>
      </div>
      {asTable ? (
        // The table scrolls inside its box: focusable, so a keyboard can scroll it (axe: scrollable-region-focusable).
        <div className="table-wrap chart-table" tabIndex={0} role="region" aria-label={`${title}, as a table`}>
          <table className="table">
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr><th scope="col">From</th>{series.map((s) => <th scope="col" key={s.label}>{s.label}</th>)}</tr>
            </thead>
            <tbody>
              {starts.map((start, i) => (
                <tr key={start}>
                  <th scope="row" className="nowrap">{formatStart(start)}</th>
                  {series.map((s) => {
                    const v = s.values[i];
                    return <td key={s.label}>{v === null ? '—' : format(v)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : (
        <div ref={box} className="chart-canvas" role="img"
          aria-label={`${title}: ${series.map((s) => `${s.label} ${format(total(s))}`).join(', ')}. `
            + 'Use "Show table" for each time step.'} />
      )}
    </figure>
  );
}
