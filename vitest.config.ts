import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on this 2-core machine: most suites wait (on PostgreSQL, a receiver, Chromium, WordPress's
    // PHP, a child process) more than they compute, but with three the suites that run several processes (database
    // failover, Prometheus, scale-out) starved each other and failed their deadlines (2026-11-28).
    maxWorkers: 2,
    globalSetup: ['test/helpers/global-setup.ts'],
    // Under CI each file's wall time is kept too (`node .ci/test-times.mjs` turns it into docs/TESTING.md's table).
    reporters: process.env.CI === 'true'
      ? ['default', ['json', { outputFile: 'test-results/vitest.json' }]]
      : ['default'],
  },
});
