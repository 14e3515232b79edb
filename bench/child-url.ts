// A benchmark's server runs in a child process that prints its URL as its first line on stdout when it listens.
import type { ChildProcess } from 'node:child_process';

/** The child's first stdout line (its URL); rejects if the child exits before printing it. */
export function childUrl(child: ChildProcess): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) ok({ child, url: out.trim() });
    });
    child.once('exit', (code) => fail(new Error(`server exited with ${code}`)));
  });
}
