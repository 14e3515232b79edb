// A TCP front for Waypost between the bridge and it (test/bridge/forwarding*.test.ts): records what the bridge sends,
// and plays "Waypost down" (its port closed) and "Waypost hangs" (connections accepted, never answered).
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage,
  type Server as HttpServer } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';

export interface Sent {
  method: string;
  path: string;
  body: any;
  status: number;
  at: number;
}

/** A TCP front for Waypost: forwards and records HTTP requests, or plays down (port closed) or hanging. */
export class WaypostFront {
  mode: 'forward' | 'hang' = 'forward';
  sent: Sent[] = [];
  port = 0;
  private net: NetServer | null = null;
  private readonly http: HttpServer;
  private readonly sockets = new Set<Socket>();

  /** When set, answers instead of Waypost (and the answer is recorded like Waypost's). */
  answer: ((method: string, path: string) => { status: number; body: unknown } | null) | null = null;

  constructor(private readonly target: string) {
    this.http = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const own = this.answer?.(req.method!, req.url!);
        if (own) {
          this.sent.push({ method: req.method!, path: req.url!, body: raw.length ? JSON.parse(raw.toString('utf8'))
            : null, status: own.status, at: Date.now() });
          res.writeHead(own.status, { 'content-type': 'application/problem+json' }).end(JSON.stringify(own.body));
          return;
        }
        const upstream = httpRequest(`${this.target}${req.url}`,
          { method: req.method, headers: { ...req.headers, host: new URL(this.target).host } },
          (up: IncomingMessage) => {
          const out: Buffer[] = [];
          up.on('data', (c: Buffer) => out.push(c));
          up.on('end', () => {
            this.sent.push({ method: req.method!, path: req.url!, body: raw.length ? JSON.parse(raw.toString('utf8'))
              : null, status: up.statusCode!, at: Date.now() });
            res.writeHead(up.statusCode!, up.headers).end(Buffer.concat(out));
          });
        });
        upstream.on('error', () => res.destroy());
        upstream.end(raw);
      });
    });
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listens (again, on the same port once it has one). */
  async up(): Promise<void> {
    this.net = createNetServer((socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => undefined);
      if (this.mode === 'hang') return; // Accepted, never answered.
      this.http.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      this.net!.once('error', reject);
      this.net!.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (this.net.address() as AddressInfo).port;
  }

  /** Closes the port (connections are refused) and drops open connections. */
  async down(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    if (this.net) await new Promise<void>((resolve) => this.net!.close(() => resolve()));
    this.net = null;
  }

  puts(resource?: string) {
    return this.sent.filter((s) => s.method === 'PUT' && (!resource || s.path.startsWith(`/host/v1/${resource}/`)));
  }
}
