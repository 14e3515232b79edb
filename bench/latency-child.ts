// One latency turn of bench/webhooks.ts in its own process, on the source tree given as argv[2] (this checkout or a
// baseline commit's, see before-tree.ts): N webhooks, the worker as `waypost serve` runs it (defaults, in the same
// process as the writes), events committed at a steady rate. The parent owns the receiver and the clock arithmetic;
// this process only reports when each event committed. Only APIs that every measured commit has are used.
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { enquiry } from './enquiry.js';

const [tree, databaseUrl, receiverUrl, webhooksArg, rateArg] = process.argv.slice(2);
const load = (path: string) => import(pathToFileURL(join(tree, path)).href);
const { createWaypost } = await load('src/sdk.ts');
const { createLogger } = await load('src/log.ts');
const { addWebhook } = await load('test/webhooks/engine/fixtures.ts');

const now = () => performance.timeOrigin + performance.now();
const send = (m: object) => new Promise<void>((resolve) => process.send!(m, () => resolve()));

const wp = await createWaypost({
  env: { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true' }, config: { databaseUrl }, logger: createLogger('silent'),
});
for (let w = 0; w < Number(webhooksArg); w++) {
  // BENCH_WEBHOOK_ORDERING: set by bench/webhooks.ts for its `ordering: record` turns (older trees ignore it).
  const ordering = process.env.BENCH_WEBHOOK_ORDERING ?? 'none';
  await addWebhook(wp.core, receiverUrl, { events: ['enquiry.created'], name: `hook ${w}`, ordering });
}
await wp.serve('worker');
const rate = Number(rateArg);
// Each phase ('go': the first record id and how many): events committed at the steady rate; the parent first runs an
// untimed warm-up phase (the process, its JIT and its database start cold), then the measured one.
process.on('message', (m: { type: string; first?: number; count?: number }) => {
  if (m.type === 'go') void phase(m.first!, m.count!);
  else if (m.type === 'close') void wp.close().then(() => process.exit(0));
});
await send({ type: 'ready' });

async function phase(first: number, count: number) {
  const committed: number[] = [];
  const start = now();
  for (let k = 0; k < count; k++) {
    const wait = start + (k * 1000) / rate - now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await wp.put('enquiries', first + k, enquiry(first + k));
    committed[k] = now();
  }
  await send({ type: 'committed', committed, offered: count / ((now() - start) / 1000) });
}
