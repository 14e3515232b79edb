// A real local HTTP receiver for delivery tests: records every request's raw body and headers, and answers as the
// test tells it (status, delay, never, redirect).
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  at: number; // Date.now() when fully received
}

export type Responder = (req: Received, res: ServerResponse) => void | Promise<void>;

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  respond: Responder;
  /** Resolves once `n` requests have been received (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export const ok: Responder = (_req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'); };
export const status = (code: number, body = ''): Responder => (_req, res) => { res.writeHead(code).end(body); };

export async function startReceiver(respond: Responder = ok): Promise<Receiver> {
  const requests: Received[] = [];
  const waiters = new Set<() => boolean>();
  const open = new Set<import('node:net').Socket>();
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests,
    respond,
    waitFor(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (requests.length >= n) {
            resolve(requests.slice(0, n));
            return true;
          }
          return false;
        };
        if (check()) return;
        const timer = setTimeout(
          () => reject(new Error(`receiver got ${requests.length} of ${n} requests within ${timeoutMs} ms`)),
          timeoutMs);
        const waiter = () => {
          if (!check()) return false;
          clearTimeout(timer);
          waiters.delete(waiter);
          return true;
        };
        waiters.add(waiter);
      });
    },
    close: () => new Promise((resolve) => {
      for (const s of open) s.destroy();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers,
        raw: Buffer.concat(chunks), at: Date.now() };
      requests.push(r);
      for (const w of [...waiters]) w();
      void Promise.resolve(receiver.respond(r, res)).catch(() => res.destroy());
    });
  });
  server.on('connection', (s) => { open.add(s); s.on('close', () => open.delete(s)); });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}
