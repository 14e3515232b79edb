// What tracing costs (`npm run bench:tracing`): bench/webhooks.ts run in turns with tracing off and on (OTEL_*
// pointing at a local OTLP/HTTP sink that answers 200 and counts what it gets), interleaved over BENCH_TRACING_ROUNDS
// rounds (default 2); the off turns also run BENCH_BASELINE_REF's engine (default main) beside this tree's in their
// latency turns, so "off costs nothing" is measured against the code before tracing. Short turns by default
// (BENCH_EVENTS 2000, 1 webhook, BENCH_LATENCY_SECONDS 5); any BENCH_* variable set is passed on.
// Writes bench/results/tracing.json; bench/results/webhooks.json is left as it was.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { loadavg } from 'node:os';

const ROOT = join(import.meta.dirname, '..');
const ROUNDS = Math.max(1, Number(process.env.BENCH_TRACING_ROUNDS ?? 2));
const SHORT = {
  BENCH_EVENTS: '2000', BENCH_WEBHOOKS: '1', BENCH_ROUNDS: '1', BENCH_LATENCY_ROUNDS: '1',
  BENCH_LATENCY_SECONDS: '5',
};
const BASELINE = process.env.BENCH_BASELINE_REF ?? 'main';
const webhooksJson = join(ROOT, 'bench/results/webhooks.json');
const kept = existsSync(webhooksJson) ? readFileSync(webhooksJson) : null;

let exports = 0;
let bytes = 0;
const sink = createServer((req, res) => {
  req.on('data', (c: Buffer) => { bytes += c.length; });
  req.on('end', () => { exports++; res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(); });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const collector = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

interface Row {
  webhooks: number;
  throughput?: { deliveries_per_second: number };
  throughput_vs_baseline?: number;
  latency?: { latency_ms: { p50: number; p95: number; p99: number }; baseline?: { latency_ms: { p99: number } } };
}

/** One bench/webhooks.ts run (a child: this process keeps answering as the sink); its report (the JSON it prints). */
async function turn(on: boolean): Promise<Row> {
  const env: NodeJS.ProcessEnv = { ...SHORT, ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('OTEL_')) delete env[k];
  if (on) Object.assign(env, { OTEL_EXPORTER_OTLP_ENDPOINT: collector, OTEL_SERVICE_NAME: 'waypost-bench' });
  else env.BENCH_BASELINE_REF = BASELINE;
  if (on) delete env.BENCH_BASELINE_REF;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/webhooks.ts'],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => { stdout += String(c); });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`bench/webhooks.ts (tracing ${on ? 'on' : 'off'}) exited with ${code}`);
  return (JSON.parse(stdout.slice(stdout.indexOf('{'))) as { results: Row[] }).results[0];
}

const turns: Array<{ tracing: 'off' | 'on'; row: Row; exports: number }> = [];
try {
  for (let r = 1; r <= ROUNDS; r++) {
    for (const on of [false, true]) {
      console.error(`round ${r}/${ROUNDS}: tracing ${on ? 'on' : 'off'}…`);
      const before = exports;
      const row = await turn(on);
      turns.push({ tracing: on ? 'on' : 'off', row, exports: exports - before });
    }
  }
} finally {
  sink.close();
  if (kept) writeFileSync(webhooksJson, kept);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const side = (t: 'off' | 'on') => {
  const rows = turns.filter((x) => x.tracing === t).map((x) => x.row);
  return {
    deliveries_per_second: median(rows.map((x) => x.throughput?.deliveries_per_second ?? 0)),
    throughput_vs_undici_loop: median(rows.map((x) => x.throughput_vs_baseline ?? 0)),
    latency_p50_ms: median(rows.map((x) => x.latency?.latency_ms.p50 ?? 0)),
    latency_p99_ms: median(rows.map((x) => x.latency?.latency_ms.p99 ?? 0)),
  };
};
const offRows = turns.filter((x) => x.tracing === 'off').map((x) => x.row);
const out = {
  benchmark: 'bench:webhooks with tracing off and on (OTEL_EXPORTER_OTLP_ENDPOINT at a local sink), and off against '
    + `${BASELINE}'s engine (latency turns)`,
  settings: { ...SHORT, ...Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('BENCH_'))) },
  rounds: ROUNDS,
  off: side('off'),
  on: side('on'),
  on_vs_off_throughput: Number((side('on').deliveries_per_second / side('off').deliveries_per_second).toFixed(3)),
  off_vs_baseline_ref_p99: {
    this_tree_ms: median(offRows.map((x) => x.latency?.latency_ms.p99 ?? 0)),
    baseline_ref_ms: median(offRows.map((x) => x.latency?.baseline?.latency_ms.p99 ?? 0)),
  },
  otlp_exports_received_when_on: turns.filter((x) => x.tracing === 'on').map((x) => x.exports),
  otlp_bytes_received: bytes,
  turns,
  load_average_1m: Number(loadavg()[0].toFixed(2)),
  date: new Date().toISOString(),
};
writeFileSync(join(ROOT, 'bench/results/tracing.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(JSON.stringify(out, null, 2));
