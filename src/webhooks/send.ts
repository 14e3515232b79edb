// One HTTP POST to a webhook target: undici with keep-alive, no redirects (undici's request() never follows
// them), a hard timeout, the response body captured up to 64 KiB, and the SSRF guard at connect time.
import { Agent, request, type Dispatcher } from 'undici';
import type { Config } from '../config.js';
import { guardedLookup, isPrivateAddress, literalAddress, PrivateTargetError } from './ssrf.js';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null; // first 64 KiB
  durationMs: number;
  error: string | null; // timeout, network error, refused target
}

const agents = new WeakMap<Config, Agent>();

/** One pooled client per configuration; it resolves names through the SSRF guard unless private targets are allowed. */
export function targetAgent(config: Config): Agent {
  let agent = agents.get(config);
  if (!agent) {
    agent = new Agent({
      keepAliveTimeout: 10_000,
      connections: 256,
      connect: config.allowPrivateTargets ? {} : { lookup: guardedLookup as never },
    });
    agents.set(config, agent);
  }
  return agent;
}

/** Closes the pooled client of a configuration (on shutdown). */
export async function closeTargetAgent(config: Config): Promise<void> {
  const agent = agents.get(config);
  agents.delete(config);
  if (agent) await agent.close().catch(() => {});
}

export async function sendWebhook(config: Config, url: string, headers: Record<string, string>, body: string, options: { signal?: AbortSignal; dispatcher?: Dispatcher } = {}): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const parsed = new URL(url);
  // net.connect skips `lookup` for IP literals, so those are checked here.
  const literal = literalAddress(parsed);
  if (!config.allowPrivateTargets && literal && isPrivateAddress(literal)) {
    return { status: null, headers: null, body: null, durationMs: 0, error: new PrivateTargetError(parsed.hostname, literal).message };
  }
  // One controller for the hard timeout and the caller's abort (cheaper than AbortSignal.any on every send).
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => { timedOut = true; controller.abort(); }, config.deliveryTimeoutMs);
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const res = await request(parsed, {
      method: 'POST',
      headers,
      body,
      signal: controller.signal,
      dispatcher: options.dispatcher ?? targetAgent(config),
      headersTimeout: config.deliveryTimeoutMs,
      bodyTimeout: config.deliveryTimeoutMs,
    });
    const responseHeaders: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders[k] = Array.isArray(v) ? v.join(', ') : v;
    const text = await readCapped(res.body, controller.signal);
    return { status: res.statusCode, headers: responseHeaders, body: text, durationMs: elapsed(), error: null };
  } catch (err) {
    return { status: null, headers: null, body: null, durationMs: elapsed(), error: describeError(err, timedOut, config.deliveryTimeoutMs) };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Reads at most 64 KiB of the body, then drops the connection's remainder. */
async function readCapped(body: Dispatcher.ResponseData['body'], signal: AbortSignal): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    size += buf.length;
    if (size >= MAX_RESPONSE_BYTES || signal.aborted) break; // leaving the loop destroys the stream
  }
  return Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
}

function describeError(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'HeadersTimeoutError' || e?.name === 'BodyTimeoutError') return `timeout: no complete answer within ${timeoutMs} ms`;
  if (e?.name === 'PrivateTargetError' || e?.cause && (e.cause as { name?: string }).name === 'PrivateTargetError') return e.message ?? 'refused: private target';
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
