// A real local HTTP receiver for webhook deliveries: records every request, answers with a status we choose.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  requests: Received[];
  /** The status the next requests get (200 by default; a 429 comes with `Retry-After: 120`). */
  respondWith(status: number): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const requests: Received[] = [];
  let status = 200;
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => { body += c; });
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      // A 429 asks to be left alone for 2 minutes (a receiver signal the drawer shows).
      const wait = status === 429 ? { 'retry-after': '120' } : {};
      res.writeHead(status, { 'content-type': 'application/json', 'x-receiver': 'console-e2e', ...wait });
      res.end(JSON.stringify(status === 200 ? { received: true, n: requests.length }
        : { error: 'receiver is down for maintenance' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/waypost`,
    requests,
    respondWith: (s) => { status = s; },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
