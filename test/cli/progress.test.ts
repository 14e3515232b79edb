import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { progress } from '../../src/cli/progress.js';

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = Object.assign(new Writable({ write(chunk, _enc, cb) { chunks.push(String(chunk)); cb(); } }),
    { isTTY, columns: 100 });
  return { stream, text: () => chunks.join(''), chunks };
}

describe('progress', () => {
  it('prints a plain line every interval when not on a terminal, with percent by position and a rate', () => {
    let t = 0;
    const out = capture(false);
    const p = progress('importing', 1000, { stream: out.stream, unit: 'lines', intervalMs: 2000, now: () => t });
    t = 1000; p.tick(100, 250); // too soon: nothing yet
    expect(out.text()).toBe('');
    t = 2000; p.tick(100, 500);
    expect(out.text()).toBe('importing:  50.0%, 200 lines, 100 lines/s\n');
    t = 4000; p.done('imported 400');
    expect(out.text().split('\n')).toEqual([
      'importing:  50.0%, 200 lines, 100 lines/s',
      'importing:  50.0%, 200 lines, 50 lines/s',
      'imported 400',
      '',
    ]);
    expect(out.text()).not.toContain('\r');
  });

  it('redraws one bar in place on a terminal and keeps notes readable', () => {
    let t = 0;
    const out = capture(true);
    const p = progress('importing', 200, { stream: out.stream, unit: 'lines', now: () => t });
    t = 500; p.tick(100);
    expect(out.chunks.at(-1)).toBe('\r\x1b[2Kimporting [############------------]  50.0% 100 lines 200 lines/s');
    p.note('line 7: type is required');
    expect(out.chunks.at(-2)).toBe('\r\x1b[2Kline 7: type is required\n');
    t = 1000; p.tick(100);
    p.done();
    expect(out.text()).toContain('[########################] 100.0% 200 lines');
    expect(out.text().endsWith('\n')).toBe(true);
  });

  it('prints nothing but the summary when no work was done', () => {
    const out = capture(false);
    progress('importing', 10, { stream: out.stream }).done('nothing to do');
    expect(out.text()).toBe('nothing to do\n');
  });
});
