// One HTTP POST to a webhook target: undici with keep-alive, no redirects (a dispatch never follows them), a hard
// timeout, the response body captured up to 64 KiB, and the SSRF guard at connect time.
//
// The request goes through undici's dispatcher with a small handler of our own rather than undici's request():
// the worker reads every answer whole into a string, so request()'s Readable stream, its async iterator and an
// AbortController per send were the largest part of the send's cost, with nothing to show for it.
import { lookup as dnsLookup, type LookupOptions } from 'node:dns';
import { Agent, type Dispatcher } from 'undici';
import type { Config } from '../config.js';
import { guardedLookup, isPrivateAddress, literalAddress, PrivateTargetError, type LookupCallback } from './ssrf.js';
import { privateTargetsAllowed } from './private-targets.js';

export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null; // first 64 KiB
  durationMs: number;
  error: string | null; // timeout, network error, refused target
}

const agents = new WeakMap<Config, { agent: Agent; allowed: boolean }>();

/**
 * One pooled client per configuration; it resolves names through the SSRF guard unless private targets are allowed
 * (src/webhooks/private-targets.ts), asked at each new connection. When they stop being allowed, the client is
 * replaced, so a kept-alive connection to a private address is not used again.
 */
export function targetAgent(config: Config): Agent {
  const allowed = privateTargetsAllowed(config);
  const held = agents.get(config);
  if (held && allowed) held.allowed = true;
  if (held && (allowed || !held.allowed)) return held.agent;
  if (held) void held.agent.close().catch(() => {});
  const lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => (
    privateTargetsAllowed(config) ? dnsLookup(hostname, options, callback as never)
      : guardedLookup(hostname, options, callback));
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256, connect: { lookup: lookup as never } });
  agents.set(config, { agent, allowed });
  return agent;
}

/** Closes the pooled client of a configuration (on shutdown). */
export async function closeTargetAgent(config: Config): Promise<void> {
  const held = agents.get(config);
  agents.delete(config);
  if (held) await held.agent.close().catch(() => {});
}

interface Target {
  origin: string;
  path: string;
  hostname: string;
  /** The IP address when the URL names one (net.connect skips `lookup` for those, so they are checked here). */
  literal: string | null;
}

/** Parsed target URLs: a worker posts to the same few URLs over and over. */
const targets = new Map<string, Target>();
const MAX_TARGETS = 1_000;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (!target) {
    const parsed = new URL(url);
    target = {
      origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, hostname: parsed.hostname,
      literal: literalAddress(parsed),
    };
    if (targets.size >= MAX_TARGETS) targets.clear();
    targets.set(url, target);
  }
  return target;
}

/** Sends in flight per caller signal, so one listener on the signal aborts them all (not one listener per send). */
const inFlight = new WeakMap<AbortSignal, Set<(reason: Error) => void>>();

function abortersOf(signal: AbortSignal): Set<(reason: Error) => void> {
  let set = inFlight.get(signal);
  if (!set) {
    const created = new Set<(reason: Error) => void>();
    const abortAll = () => { for (const abort of created) abort(new Error('aborted')); };
    signal.addEventListener('abort', abortAll, { once: true });
    inFlight.set(signal, created);
    set = created;
  }
  return set;
}

export function sendWebhook(
  config: Config, url: string, headers: Record<string, string>, body: string,
  options: { signal?: AbortSignal; dispatcher?: Dispatcher } = {},
): Promise<SendResult> {
  const target = targetOf(url);
  if (target.literal && !privateTargetsAllowed(config) && isPrivateAddress(target.literal)) {
    return Promise.resolve(notSent(new PrivateTargetError(target.hostname, target.literal).message));
  }
  if (options.signal?.aborted) return Promise.resolve(notSent('aborted'));
  const dispatcher = options.dispatcher ?? targetAgent(config);
  return new Promise<SendResult>((resolve) => {
    new Exchange(config, target, headers, body, dispatcher, options.signal, resolve);
  });
}

/** One request and its answer, as an undici dispatch handler. */
class Exchange implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private readonly timer: NodeJS.Timeout;
  private readonly aborters: Set<(reason: Error) => void> | undefined;
  private abortRequest: ((reason: Error) => void) | null = null;
  private timedOut = false;
  private capped = false;
  private done = false;
  private status = 0;
  private responseHeaders: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  /** Aborts the request, or, before it has a connection, answers at once and aborts it when it gets one. */
  private readonly abortThis = (reason: Error) => {
    if (this.abortRequest) this.abortRequest(reason);
    else this.finish(reason);
  };

  constructor(
    private readonly config: Config,
    target: Target,
    headers: Record<string, string>,
    body: string,
    dispatcher: Dispatcher,
    signal: AbortSignal | undefined,
    private readonly resolve: (result: SendResult) => void,
  ) {
    this.timer = setTimeout(() => {
      this.timedOut = true;
      this.abortThis(new Error('timeout'));
    }, config.deliveryTimeoutMs);
    if (signal) {
      this.aborters = abortersOf(signal);
      this.aborters.add(this.abortThis);
    }
    try {
      dispatcher.dispatch({
        origin: target.origin,
        path: target.path,
        method: 'POST',
        headers,
        body,
        headersTimeout: config.deliveryTimeoutMs,
        bodyTimeout: config.deliveryTimeoutMs,
      }, this);
    } catch (err) {
      this.onError(err as Error);
    }
  }

  onConnect(abort: (reason?: Error) => void): void {
    this.abortRequest = abort;
    if (this.done) abort(new Error('aborted'));
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    this.status = statusCode;
    const headers: Record<string, string> = {}; // a 1xx answer's headers are replaced by the final one's
    this.responseHeaders = headers;
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const key = rawHeaders[i].toString('latin1').toLowerCase();
      const value = rawHeaders[i + 1].toString('latin1');
      headers[key] = headers[key] === undefined ? value : `${headers[key]}, ${value}`;
    }
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size >= MAX_RESPONSE_BYTES) {
      // Enough for the log: drop the connection's remainder and answer with what was read.
      this.capped = true;
      this.abortRequest?.(new Error('response body capped'));
    }
    return true;
  }

  onComplete(): void {
    this.finish(null);
  }

  onError(err: Error): void {
    this.finish(this.capped && !this.timedOut ? null : err);
  }

  private finish(err: Error | null): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.aborters?.delete(this.abortThis);
    const durationMs = Math.round(performance.now() - this.started);
    if (err) {
      const error = describeError(err, this.timedOut, this.config.deliveryTimeoutMs);
      this.resolve({ status: null, headers: null, body: null, durationMs, error });
      return;
    }
    const text = this.chunks.length === 1 && this.size <= MAX_RESPONSE_BYTES
      ? this.chunks[0].toString('utf8')
      : Buffer.concat(this.chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8');
    this.resolve({ status: this.status, headers: this.responseHeaders, body: text, durationMs, error: null });
  }
}

function notSent(error: string): SendResult {
  return { status: null, headers: null, body: null, durationMs: 0, error };
}

function describeError(err: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `timeout: no complete answer within ${timeoutMs} ms`;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'HeadersTimeoutError' || e?.name === 'BodyTimeoutError') {
    return `timeout: no complete answer within ${timeoutMs} ms`;
  }
  if (e?.name === 'PrivateTargetError' || (e?.cause as { name?: string } | undefined)?.name === 'PrivateTargetError') {
    return e.message ?? 'refused: private target';
  }
  const code = e?.code ?? e?.cause?.code;
  const message = e?.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}
