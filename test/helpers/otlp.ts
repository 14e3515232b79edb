// An OTLP/HTTP trace receiver for tests: accepts POST /v1/traces in either encoding the exporters speak
// (application/x-protobuf, read by the small wire-format decoder below; application/json) and keeps each span with
// its ids in hex, as a collector would show them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string; // '' for a root span
  name: string;
  kind: number; // 1 internal, 2 server, 3 client
  attributes: Record<string, string | number | boolean>;
  statusCode: number; // 0 unset, 1 ok, 2 error
  service: string;
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Resolves once a span satisfying `match` arrived (rejects after timeoutMs). */
  waitFor(match: (s: ReceivedSpan) => boolean, timeoutMs?: number): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

type Fields = Map<number, Array<Buffer | bigint>>;

/** One protobuf message's fields: varints as bigint, length-delimited values as Buffers (fixed64/32 as Buffers). */
function fields(buf: Buffer): Fields {
  const out: Fields = new Map();
  let at = 0;
  const varint = (): bigint => {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const byte = buf[at++];
      value |= BigInt(byte & 0x7f) << shift;
      if (byte < 0x80) return value;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const [field, wire] = [key >> 3, key & 7];
    let value: Buffer | bigint;
    if (wire === 0) value = varint();
    else if (wire === 2) {
      const n = Number(varint());
      value = buf.subarray(at, at + n);
      at += n;
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      value = buf.subarray(at, at + n);
      at += n;
    } else throw new Error(`unexpected wire type ${wire}`);
    out.set(field, [...(out.get(field) ?? []), value]);
  }
  return out;
}

const all = (f: Fields, n: number) => (f.get(n) ?? []) as Buffer[];
const one = (f: Fields, n: number) => f.get(n)?.[0];

/** AnyValue: string (1), bool (2), int (3), double (4). */
function anyValue(buf: Buffer): string | number | boolean {
  const f = fields(buf);
  if (f.has(1)) return String(one(f, 1));
  if (f.has(2)) return one(f, 2) === 1n;
  if (f.has(3)) return Number(one(f, 3));
  if (f.has(4)) return (one(f, 4) as Buffer).readDoubleLE(0);
  return '';
}

function keyValues(list: Buffer[]): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((kv) => {
    const f = fields(kv);
    return [String(one(f, 1)), f.has(2) ? anyValue(one(f, 2) as Buffer) : ''];
  }));
}

/** ExportTraceServiceRequest → resource_spans(1) → {resource(1), scope_spans(2) → spans(2)}. */
function fromProtobuf(body: Buffer): ReceivedSpan[] {
  return all(fields(body), 1).flatMap((rs) => {
    const r = fields(rs);
    const resource = r.has(1) ? keyValues(all(fields(one(r, 1) as Buffer), 1)) : {};
    return all(r, 2).flatMap((ss) => all(fields(ss), 2).map((raw) => {
      const s = fields(raw);
      const hex = (n: number) => ((one(s, n) as Buffer | undefined) ?? Buffer.alloc(0)).toString('hex');
      const status = s.has(15) ? fields(one(s, 15) as Buffer) : new Map();
      return {
        traceId: hex(1), spanId: hex(2), parentSpanId: hex(4), name: String(one(s, 5)),
        kind: Number(one(s, 6) ?? 0n), attributes: keyValues(all(s, 9)),
        statusCode: Number(status.get(3)?.[0] ?? 0n), service: String(resource['service.name'] ?? ''),
      };
    }));
  });
}

interface JsonValue { stringValue?: string; boolValue?: boolean; intValue?: string | number; doubleValue?: number }
interface JsonSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  attributes?: Array<{ key: string; value: JsonValue }>; status?: { code?: number };
}

function fromJson(body: Buffer): ReceivedSpan[] {
  const attrs = (list: Array<{ key: string; value: JsonValue }> = []) => Object.fromEntries(list.map(({ key, value }) =>
    [key, value.stringValue ?? value.boolValue ?? (value.intValue !== undefined ? Number(value.intValue)
      : value.doubleValue ?? '')]));
  const request = JSON.parse(String(body)) as { resourceSpans: Array<{
    resource?: { attributes?: Array<{ key: string; value: JsonValue }> }; scopeSpans: Array<{ spans: JsonSpan[] }>;
  }> };
  return request.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => ({
    traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId ?? '', name: s.name, kind: s.kind,
    attributes: attrs(s.attributes), statusCode: s.status?.code ?? 0,
    service: String(attrs(rs.resource?.attributes)['service.name'] ?? ''),
  }))));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const json = (req.headers['content-type'] ?? '').includes('json');
      if (req.url === '/v1/traces') spans.push(...(json ? fromJson(body) : fromProtobuf(body)));
      const type = json ? 'application/json' : 'application/x-protobuf';
      res.writeHead(200, { 'content-type': type }).end(json ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    spans,
    async waitFor(match, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = spans.find(match);
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no such span among ${spans.map((s) => s.name).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
