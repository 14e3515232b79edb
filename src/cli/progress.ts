// A progress line for long CLI work, on stderr so stdout stays clean for --json. On a terminal it is one bar,
// redrawn in place a few times a second; in a pipe or a log file it is a plain line every few seconds.

export interface Progress {
  /** Counts `n` more items (the rate is items per second). `position` (e.g. bytes read) drives the percentage;
   *  without it the item count does. */
  tick(n?: number, position?: number): void;
  /** Prints a message on its own line without garbling the bar (e.g. a skipped line's reason). */
  note(message: string): void;
  /** Prints the final line (the summary, if given) and stops. */
  done(summary?: string): void;
}

export interface ProgressOptions {
  /** What the items are called in the rate, e.g. "lines" → "12,345 lines/s". */
  unit?: string;
  stream?: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  /** Milliseconds between plain (non-terminal) lines. */
  intervalMs?: number;
  now?: () => number;
}

const TTY_REDRAW_MS = 100;
const BAR_WIDTH = 24;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

export function progress(label: string, total: number, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr;
  const now = options.now ?? Date.now;
  const unit = options.unit ?? 'items';
  const tty = Boolean(stream.isTTY);
  const interval = tty ? TTY_REDRAW_MS : (options.intervalMs ?? 2_000);
  const started = now();
  let count = 0;
  let position: number | null = null;
  let lastDraw = started;
  let finished = false;
  let ticked = false;

  function line(): string {
    const elapsedS = Math.max((now() - started) / 1000, 0.001);
    const at = position ?? count;
    const ratio = total > 0 ? Math.min(at / total, 1) : 1;
    const pct = `${(ratio * 100).toFixed(1).padStart(5)}%`;
    const rate = `${fmt(count / elapsedS)} ${unit}/s`;
    if (!tty) return `${label}: ${pct}, ${fmt(count)} ${unit}, ${rate}`;
    const filled = Math.round(ratio * BAR_WIDTH);
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${pct} ${fmt(count)} ${unit} ${rate}`;
  }

  function draw(): void {
    if (tty) stream.write(`\r\x1b[2K${line().slice(0, Math.max((stream.columns ?? 120) - 1, 20))}`);
    else stream.write(`${line()}\n`);
  }

  return {
    tick(n = 1, pos?: number) {
      if (finished) return;
      ticked = true;
      count += n;
      if (pos !== undefined) position = pos;
      const t = now();
      if (t - lastDraw >= interval) {
        lastDraw = t;
        draw();
      }
    },
    note(message: string) {
      if (tty && !finished) {
        stream.write(`\r\x1b[2K${message}\n`);
        draw();
      } else {
        stream.write(`${message}\n`);
      }
    },
    done(summary?: string) {
      if (finished) return;
      finished = true;
      if (ticked) {
        draw();
        if (tty) stream.write('\n');
      }
      if (summary) stream.write(`${summary}\n`);
    },
  };
}
