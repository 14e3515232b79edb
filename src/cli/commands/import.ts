import { access, constants } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config.js';
import type { Cli } from '../context.js';
import { CliError } from '../fail.js';
import { progress } from '../progress.js';

const fmt = (n: number) => n.toLocaleString('en-US');

/** Stops, in words, when the file is not there or not readable (rather than a bare ENOENT). */
async function checkReadable(file: string): Promise<void> {
  const path = resolve(file);
  try {
    await access(path, constants.R_OK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new CliError('file_not_found', `cannot import ${path}: there is no such file (check the path)`);
    }
    if (code === 'EACCES' || code === 'EPERM') {
      throw new CliError('file_unreadable', `cannot import ${path}: permission denied (the file is not readable)`);
    }
    throw new CliError('file_unreadable', `cannot import ${path}: ${(err as Error).message}`);
  }
}

/**
 * The store's DEFAULT_BATCH_SIZE (src/store/bulk-schema.ts), as --help says it: that module brings the whole query
 * builder, 262 of the 364 files `waypost --help` read. messages.test.ts checks the two agree.
 */
export const BATCH_SIZE_HELP = { sqlite: 2000, postgres: 500 } as const;

function positiveInt(value: string): number {
  if (!/^[1-9]\d{0,5}$/.test(value)) throw new InvalidArgumentError('Give a whole number from 1 to 999999.');
  return Number(value);
}

export function registerImport(program: Command, cli: Cli): void {
  program.command('import')
    .description('Load existing data from an NDJSON file ({"type":"booking","id":1,"data":{…}} per line) '
      + 'without firing events')
    .argument('<file>', 'the .ndjson file')
    .option('--restart', 'ignore the progress of an earlier run of this file and start from line 1')
    .option('--batch-size <n>', `lines per transaction (default ${BATCH_SIZE_HELP.sqlite} on SQLite, `
      + `${BATCH_SIZE_HELP.postgres} on PostgreSQL)`, positiveInt)
    .option('--bulk-load', 'load without indexes and build them at the end (default: when the file is large)')
    .option('--no-bulk-load', 'keep every index up to date while loading (a server on the database stays fast)')
    .option('--json', 'machine-readable summary on stdout')
    .action(async (file: string,
      opts: { restart?: boolean; batchSize?: number; bulkLoad?: boolean; json?: boolean }) => {
      // Configuration errors first (exit 2), then a missing file (exit 1) before the database is opened.
      loadConfig(cli.io.env);
      await checkReadable(file);
      const { importFile, importFileKey } = await import('../../host/import.js'); // loaded to run, not for --help
      const { size } = await importFileKey(file);
      const summary = await cli.withWaypost(async (wp) => {
        const bar = progress('importing', size, { unit: 'lines', stream: cli.io.stderr });
        let seen = 0;
        const result = await importFile(wp.core, file, {
          restart: opts.restart,
          batchSize: opts.batchSize,
          bulkLoad: opts.bulkLoad,
          onRebuild: (step, done, of) => bar.note(`building indexes: ${done + 1}/${of} (${step})`),
          onBadLine: (line, message) => bar.note(`line ${line}: ${message}`),
          onProgress: ({ lines, bytes }) => {
            bar.tick(lines - seen, bytes);
            seen = lines;
          },
        });
        bar.done();
        return result;
      });
      const imported = summary.created + summary.changed;
      const resumed = summary.resumedAfter > 0 ? ` (resumed after line ${fmt(summary.resumedAfter)})` : '';
      cli.output(opts.json, summary, () => summary.resumedAfter >= summary.lines && summary.lines > 0
        ? `${summary.file} was already imported up to line ${fmt(summary.resumedAfter)}; nothing to do `
          + '(use --restart to import it again)'
        : `imported ${fmt(imported)} (${fmt(summary.created)} new, ${fmt(summary.changed)} changed), `
          + `unchanged ${fmt(summary.unchanged)}, skipped ${fmt(summary.skipped)}${resumed}`);
      // Exit 1 only when lines were read and not one of them was valid.
      if (summary.skipped > 0 && imported + summary.unchanged === 0) cli.exitCode = 1;
    });
}
