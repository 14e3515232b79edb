// The run of `waypost listen`: say where events go and with which secret, then long-poll the feed and hand each
// event on, one line per event; the position is saved after each, so Ctrl-C (or a crash) loses nothing and the next
// run resumes after the last event handed on.
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';
import { newestEventId, nextEvents, type FeedSource } from './feed.js';
import { forward } from './forward.js';
import { defaultStatePath, loadState, saveState } from './state.js';

export interface FollowOptions {
  server: string;
  apiRoot: string;
  key: string;
  secret: string;
  types?: string;
  since: string | null;
  forwardTo: string | null;
  printJson: boolean;
  statePath?: string;
  waitS: number;
  serviceName: string;
  version: string;
}

const RETRY_MS = 2_000;
const clock = (ms: number) => new Date(ms).toISOString().slice(11, 19);

export async function followFeed(cli: Cli, o: FollowOptions): Promise<void> {
  const { stdout, stderr } = cli.io;
  const statePath = o.statePath ?? defaultStatePath(cli.io.env);
  const state = loadState(statePath, o.server);
  const source: FeedSource = { api: `${o.server}${o.apiRoot}`, key: o.key, secret: o.secret, types: o.types,
    waitS: o.waitS };
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  cli.io.signals?.once('SIGINT', onSignal);
  cli.io.signals?.once('SIGTERM', onSignal);
  try {
    let position = { after: o.since ? null : state.lastEventId, since: o.since };
    if (!position.after && !position.since) position.after = await newestEventId(source, stop.signal);
    saveState(statePath, o.server, state);
    stderr.write(`Ready: following ${source.api}/events${o.types ? ` (${o.types})` : ''}`
      + `${o.forwardTo ? `, forwarding to ${o.forwardTo}` : ''}.\n`
      + `${o.forwardTo ? `Signing secret: ${state.secret} (kept in ${statePath})\n` : ''}`
      + `${position.since ? `Replaying from ${position.since}.` : position.after ? `Resuming after ${position.after}.`
        : 'Waiting for the first event.'} Press Ctrl-C to stop.\n`);
    while (!stop.signal.aborted) {
      let events;
      try {
        events = await nextEvents(source, position, stop.signal);
      } catch (err) {
        if (stop.signal.aborted) break;
        if (err instanceof CliError) throw err;
        stderr.write(`${clock(Date.now())}  cannot reach ${o.server} (${(err as Error).message}); retrying\n`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
        continue;
      }
      for (const event of events) {
        if (o.printJson) stdout.write(`${JSON.stringify(event)}\n`);
        if (o.forwardTo) {
          const sent = await forward(event, { url: o.forwardTo, secret: state.secret, serviceName: o.serviceName,
            version: o.version, nowMs: Date.now });
          const outcome = sent.status === null ? `failed: ${sent.error}` : `${sent.status}`;
          stdout.write(`${clock(Date.now())}  ${event.type.padEnd(30)} ${event.id}  → ${outcome} in ${sent.ms} ms\n`);
        }
        state.lastEventId = event.id;
        saveState(statePath, o.server, state);
        position = { after: event.id, since: null };
      }
    }
    stderr.write(`Stopped.${state.lastEventId ? ` The next run resumes after ${state.lastEventId}.` : ''}\n`);
  } finally {
    cli.io.signals?.off('SIGINT', onSignal);
    cli.io.signals?.off('SIGTERM', onSignal);
  }
}
