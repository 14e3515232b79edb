// The receiver for bench/webhooks.ts, in its own process so it does not share the event loop with Waypost.
// Answers 200 at once; records, per request, the record id in the payload and the arrival time (ms, wall clock).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const ids: number[] = [];
const times: number[] = [];
let expected = Infinity;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    let id = -1;
    try {
      id = Number((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data?: { id?: number } }).data?.id ?? -1);
    } catch { /* the baseline posts a fixed body */ }
    ids.push(id);
    times.push(at);
    if (ids.length >= expected) {
      expected = Infinity;
      process.send!({ type: 'reached' });
    }
  });
});
server.keepAliveTimeout = 30_000;

process.on('message', (m: { type: string; n?: number }) => {
  if (m.type === 'expect') {
    expected = m.n!;
    if (ids.length >= expected) {
      expected = Infinity;
      process.send!({ type: 'reached' });
    }
  } else if (m.type === 'report') {
    process.send!({ type: 'report', ids, times });
  } else if (m.type === 'reset') {
    ids.length = 0;
    times.length = 0;
    process.send!({ type: 'reset' });
  } else if (m.type === 'stop') {
    server.close();
    process.exit(0);
  }
});

server.listen(0, '127.0.0.1', () => process.send!({ type: 'listening', port: (server.address() as AddressInfo).port }));
