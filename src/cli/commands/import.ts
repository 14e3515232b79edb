import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import { loadConfig } from '../../config.js';
import { DEFAULT_BATCH_SIZE, importFile, importFileKey } from '../../host/import.js';
import { output, withWaypost } from '../context.js';
import { progress } from '../progress.js';

const fmt = (n: number) => n.toLocaleString('en-US');

function positiveInt(value: string): number {
  if (!/^[1-9]\d{0,5}$/.test(value)) throw new InvalidArgumentError('expected a whole number from 1 to 999999');
  return Number(value);
}

export function registerImport(program: Command): void {
  program.command('import')
    .description('Load existing data from an NDJSON file ({"type":"booking","id":1,"data":{…}} per line) without firing events')
    .argument('<file>', 'the .ndjson file')
    .option('--restart', 'ignore the progress of an earlier run of this file and start from line 1')
    .option('--batch-size <n>', 'lines per transaction', positiveInt, DEFAULT_BATCH_SIZE)
    .option('--json', 'machine-readable summary on stdout')
    .action(async (file: string, opts: { restart?: boolean; batchSize: number; json?: boolean }) => {
      loadConfig(); // configuration errors first (exit 2), then a missing file (exit 1) before the database is opened
      const { size } = await importFileKey(file);
      const summary = await withWaypost(async (wp) => {
        const bar = progress('importing', size, { unit: 'lines' });
        let seen = 0;
        const result = await importFile(wp.core, file, {
          restart: opts.restart,
          batchSize: opts.batchSize,
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
      output(opts.json, summary, () => summary.resumedAfter >= summary.lines && summary.lines > 0
        ? `${summary.file} was already imported up to line ${fmt(summary.resumedAfter)}; nothing to do (use --restart to import it again)`
        : `imported ${fmt(imported)} (${fmt(summary.created)} new, ${fmt(summary.changed)} changed), unchanged ${fmt(summary.unchanged)}, skipped ${fmt(summary.skipped)}${resumed}`);
      // Exit 1 only when lines were read and not one of them was valid.
      if (summary.skipped > 0 && imported + summary.unchanged === 0) process.exitCode = 1;
    });
}
