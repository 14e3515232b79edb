// `waypost` as a process (bin/waypost.js runs the build of this file): the process's streams and environment for
// run() (src/cli/run.ts), and its exit code as the process's.
import { run } from './run.js';

// Started by bin/waypost.js with its heap flags: that launcher's IPC channel closes when it is gone (even SIGKILLed),
// and this process then stops as on SIGTERM instead of running on alone. The channel alone keeps nothing alive.
if (process.channel) {
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

const { stdin, stdout, stderr, env } = process;
// `signals: process`: a running `serve` stops on the process's SIGINT/SIGTERM (and only then listens for them).
const code = await run(process.argv.slice(2), { stdout, stderr, env, stdin, signals: process });
// process.exit does not wait for output still queued for a pipe (asynchronous on some systems): flush it first.
await Promise.all([stdout, stderr].map((s) => new Promise((resolve) => s.write('', resolve))));
process.exit(code);
