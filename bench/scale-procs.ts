// For bench/scale.ts: Waypost processes (`waypost serve --role …`), and the CPU seconds each party of a run spent,
// read from /proc/<pid>/stat (utime + stime): the Waypost processes, their PostgreSQL backends (found by the
// application_name each process connects with), every postgres process (the backends plus WAL writer,
// checkpointer, autovacuum: other work on a shared machine shows up here too), Redis, the receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { childPids } from '../test/helpers/processes.js';

const TICKS_PER_SECOND = 100; // CLK_TCK on Linux (getconf CLK_TCK)
const ROOT = join(import.meta.dirname, '..');

/** CPU seconds (user + system) a process has used, or null once it is gone. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // the name may hold spaces
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND; // fields 14 and 15 of proc(5)
  } catch {
    return null;
  }
}

/** Pids of the processes named `name` (/proc/<pid>/comm). */
export function pidsNamed(name: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name) pids.push(Number(entry));
    } catch { /* exited */ }
  }
  return pids;
}

/**
 * CPU seconds per party between start() and stop(), sampled every 100 ms so a process that exits mid-run (a pool's
 * backend closed) still counts up to its last sample. Parties are named groups of pids, found again at each sample.
 */
export class CpuMeter {
  private readonly first = new Map<number, number>();
  private readonly last = new Map<number, number>();
  private readonly partyOf = new Map<number, string>();
  private timer: NodeJS.Timeout | null = null;
  private sampling: Promise<void> = Promise.resolve();

  constructor(private readonly parties: () => Promise<Record<string, number[]>>) {}

  async start(): Promise<void> {
    await this.sample(true);
    this.timer = setInterval(() => { this.sampling = this.sample(false); }, 100);
  }

  async stop(): Promise<Record<string, number>> {
    if (this.timer) clearInterval(this.timer);
    await this.sampling;
    await this.sample(false);
    const out: Record<string, number> = {};
    for (const [pid, party] of this.partyOf) {
      out[party] = (out[party] ?? 0) + (this.last.get(pid)! - (this.first.get(pid) ?? 0));
    }
    for (const k of Object.keys(out)) out[k] = Number(out[k].toFixed(2));
    return out;
  }

  private async sample(initial: boolean): Promise<void> {
    const parties = await this.parties();
    for (const [party, pids] of Object.entries(parties)) {
      for (const pid of pids) {
        const s = cpuSeconds(pid);
        if (s === null) continue;
        if (!this.partyOf.has(pid)) this.partyOf.set(pid, party);
        // A process first seen after the start (a backend opened mid-run) counts from zero.
        if (initial && !this.first.has(pid)) this.first.set(pid, s);
        this.last.set(pid, s);
      }
    }
  }
}

/** Pids of the PostgreSQL backends whose application_name starts with `prefix`. */
export async function backendPids(admin: pg.Client, prefix: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    'SELECT pid FROM pg_stat_activity WHERE application_name LIKE $1', [`${prefix}%`]);
  return rows.map((r) => r.pid);
}

/** The database URL with an application_name, so the process's backends can be told apart. */
export function withApplicationName(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}

export interface WaypostProcess {
  child: ChildProcess;
  /** The server's pid: bin/waypost.js runs `serve` as a child of itself with its heap flags. */
  pid: number;
  stop(): Promise<void>;
}

/**
 * `waypost serve --role <role>` in its own process: the build (bin/waypost.js) or, with `tree`, that tree's sources
 * through tsx (BENCH_BEFORE_REF compares a base commit this way). Resolves once it logs that it is running.
 */
export function startWaypost(role: 'api' | 'worker', env: Record<string, string>, options: {
  tree?: string; cpuProfDir?: string;
} = {}): Promise<WaypostProcess> {
  const flags = options.cpuProfDir ? ['--cpu-prof', '--cpu-prof-dir', options.cpuProfDir] : [];
  const entry = options.tree
    ? ['--import', 'tsx', join(options.tree, 'src', 'cli', 'main.ts')]
    : [join(ROOT, 'bin', 'waypost.js')];
  const child = spawn(process.execPath, [...flags, ...entry, 'serve', '--role', role], {
    cwd: options.tree ?? ROOT, env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = role === 'api' ? 'waypost listening' : 'waypost worker running';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    let out = '';
    let errors = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) {
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        const [pid = child.pid!] = childPids(child.pid!);
        resolve({ child, pid, stop: async () => { child.kill('SIGTERM'); await exited; } });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => { errors += d.toString(); });
    child.once('exit', (code) => reject(new Error(`waypost ${role} exited with ${code}: ${errors.slice(-2000)}`)));
  });
}
