// The HTTP benchmarks drive Debian's wrk (autocannon saturates near 20k req/s here, below what it would measure). A
// machine without it should hear so in one line before anything is seeded, not from a spawn error minutes later.
import { spawnSync } from 'node:child_process';

export function needWrk(): void {
  if (spawnSync('wrk', ['--version']).error) {
    process.stderr.write('wrk not found: install Debian\'s wrk (apt-get install wrk) and run the benchmark again\n');
    process.exit(1);
  }
}
