// Bulk import (`waypost import FILE.ndjson`): loads existing host data into the read model without firing events.
// One `{"type":"booking","id":123,"data":{…}}` per line. Lines are validated like Host API bodies; a bad line is
// reported with its number and skipped. Valid lines are written in batches, each batch one transaction that also
// records how far the import got, so a re-run of the same unchanged file continues after the last committed line.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CompiledQuery, Kysely } from 'kysely';
import type { Core } from '../core.js';
import { AppError, badRequest, conflict } from '../errors.js';
import { iso } from '../records/normalize.js';
import type { InputRecords, Resource } from '../records/schemas.js';
import { hostIdProblem, validateInput } from '../records/validate.js';
import type { Database } from '../store/tables.js';
import { putBatch } from './bulk.js';
import { ImportPipeline } from './pipeline.js';
import { beginBulkLoad, finishBulkLoad, pendingBulkLoad, shouldBulkLoad } from './bulk-load.js';
import { demoRecordCount, REMOVE_DEMO_HINT } from './demo-guard.js';

/** Line types, singular or plural, and the resource each one writes. */
export const IMPORT_TYPES: Readonly<Record<string, Resource>> = Object.freeze({
  trip: 'trips', trips: 'trips',
  customer: 'customers', customers: 'customers',
  booking: 'bookings', bookings: 'bookings',
  payment: 'payments', payments: 'payments',
  enquiry: 'enquiries', enquiries: 'enquiries',
  review: 'reviews', reviews: 'reviews',
});

/**
 * SQLite page cache while importing (KiB): a million rows' index pages stay in memory between batches. A bulk load
 * appends rows in id order and has few index pages to keep, so it needs much less.
 */
const IMPORT_CACHE_KIB = { rows: 49_152, bulk: 16_384 };
const MAX_REPORTED_ERRORS = 1000;
/**
 * A batch also ends at this many bytes of line text: two batches (one being decided, one being written) are what
 * the importer holds, so its memory follows the file's line sizes only up to this. 1,000 lines of the scale file;
 * 2,000 of them peaked near 300 MB RSS, this at 255-267 MB for the same speed.
 */
const BATCH_BYTES = 512 * 1024;

export interface ImportOptions {
  /** Ignore recorded progress and start from line 1. */
  restart?: boolean;
  /** Lines per batch (at most; a batch also ends at `batchBytes` of line text). */
  batchSize?: number;
  batchBytes?: number;
  /**
   * Load without the secondary indexes, search index and triggers, and build them at the end (bulk-load.ts).
   * Default: when the file is large beside the tables. Always when an earlier bulk load is unfinished.
   */
  bulkLoad?: boolean;
  /** Each rebuild step after a bulk load (an index, a search index, the triggers), before it runs. */
  onRebuild?: (step: string, done: number, of: number) => void;
  /** After each committed batch: lines read so far in this run, bytes read, file size. */
  onProgress?: (p: { lines: number; bytes: number; totalBytes: number }) => void;
  /** Each skipped line, as soon as it is found. */
  onBadLine?: (line: number, message: string) => void;
}

export interface ImportSummary {
  file: string;
  /** Lines before this one were committed by an earlier run and were not read again (0 for a fresh import). */
  resumedAfter: number;
  /** The last line of the file. */
  lines: number;
  created: number;
  changed: number;
  unchanged: number;
  skipped: number;
  /** Whether the import loaded in bulk (indexes built at the end). */
  bulkLoad: boolean;
  /** The first 1000 skipped lines with their reasons. */
  errors: Array<{ line: number; message: string }>;
}

export interface ImportItem {
  resource: Resource;
  id: number;
  input: InputRecords[Resource];
}

/** A line that cannot be imported; the message starts with the offending field. */
class LineError extends Error {}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseId(value: unknown, field: string): number {
  const n = typeof value === 'string' && /^[1-9]\d{0,15}$/.test(value) ? Number(value) : value;
  const problem = hostIdProblem(n);
  if (problem) throw new LineError(`${field} ${problem}`);
  return n as number;
}

/** Parses and validates one line (the same validation as a Host API PUT). Throws LineError with a clear message. */
export function parseImportLine(text: string): ImportItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new LineError(`(line) is not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(parsed)) throw new LineError('(line) must be a JSON object like {"type":"booking","id":1,"data":{…}}');
  for (const key of Object.keys(parsed)) {
    if (key !== 'type' && key !== 'id' && key !== 'data') {
      throw new LineError(`${key} is not a known field (expected type, id, data)`);
    }
  }
  const { type, data } = parsed;
  if (type === undefined) throw new LineError('type is required');
  const resource = typeof type === 'string' ? IMPORT_TYPES[type] : undefined;
  if (!resource) {
    throw new LineError(
      `type ${JSON.stringify(type)} is not a known type (expected trip, customer, booking, payment, enquiry or review)`,
    );
  }
  if (!isObject(data)) throw new LineError('data must be a JSON object (the record\'s fields)');
  const { id: dataId, ...fields } = data;
  if (parsed.id === undefined && dataId === undefined) {
    throw new LineError('id is required (top-level "id" or "data.id")');
  }
  const id = parsed.id !== undefined ? parseId(parsed.id, 'id') : parseId(dataId, 'data.id');
  if (parsed.id !== undefined && dataId !== undefined && parseId(dataId, 'data.id') !== id) {
    throw new LineError(`data.id ${JSON.stringify(dataId)} does not match id ${id}`);
  }
  try {
    return { resource, id, input: validateInput(resource, fields) };
  } catch (err) {
    if (err instanceof AppError) {
      throw new LineError(
        err.detail.startsWith('(body)') ? `data${err.detail.slice('(body)'.length)}` : `data.${err.detail}`,
      );
    }
    throw err;
  }
}

/** Identifies one version of a file: the same path with another size or modification time starts over. */
export async function importFileKey(path: string): Promise<{ key: string; size: number }> {
  const abs = resolve(path);
  let info;
  try {
    info = await stat(abs);
  } catch (err) {
    throw badRequest(
      'import_file_unreadable',
      `cannot read ${abs}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  if (!info.isFile()) throw badRequest('import_file_unreadable', `${abs} is not a file`);
  return { key: `${abs}|${info.size}|${Math.floor(info.mtimeMs)}`, size: info.size };
}

async function committedLine(core: Core, key: string): Promise<number> {
  const row = await core.db.selectFrom('import_progress').select('line').where('file_key', '=', key).executeTakeFirst();
  return row ? Number(row.line) : 0;
}

async function recordProgress(trx: Kysely<Database>, key: string, line: number, now: string): Promise<void> {
  await trx.executeQuery(progressQuery(trx, key, line, now));
}

function progressQuery(db: Kysely<Database>, key: string, line: number, now: string): CompiledQuery {
  return db.insertInto('import_progress').values({ file_key: key, line, updated_at: now })
    .onConflict((oc) => oc.column('file_key').doUpdateSet({ line, updated_at: now }))
    .compile();
}

export async function importFile(core: Core, path: string, options: ImportOptions = {}): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? core.store.sql.defaultImportBatch;
  const batchBytes = options.batchBytes ?? BATCH_BYTES;
  const { key, size } = await importFileKey(path);
  // The importer writes by id without the single write's checks: a site's history never goes beside the demo.
  const demo = await demoRecordCount(core.db);
  if (demo > 0) {
    throw conflict('demo_records', `This database holds the demo catalogue (${demo} records from \`waypost demo\`), `
      + `and an import would mix a site's records with it: ${REMOVE_DEMO_HINT}.`);
  }
  const resumedAfter = options.restart ? 0 : await committedLine(core, key);
  const summary: ImportSummary = {
    file: resolve(path), resumedAfter, lines: 0, created: 0, changed: 0, unchanged: 0, skipped: 0, bulkLoad: false,
    errors: [],
  };
  // An unfinished bulk load (an earlier import stopped): this import goes on with it and finishes it.
  const pending = (await pendingBulkLoad(core.db)).length > 0;
  const bulk = summary.bulkLoad = pending || (options.bulkLoad ?? await shouldBulkLoad(core, size));
  if (bulk) await beginBulkLoad(core);

  // Batch N + 1 is read and decided here while the store writes batch N (pipeline.ts), where it has a second
  // connection to write with (SQLite's writer thread, PostgreSQL's pool); else each batch is written in turn.
  // (Set up before the file is opened: readline starts reading at once, and lines read before the loop are lost.)
  let inFlight: Promise<void> | null = null;
  const cacheKib = IMPORT_CACHE_KIB[bulk ? 'bulk' : 'rows'];
  const pipeline = await ImportPipeline.open(core, cacheKib);
  // A pipeline writes with its own connection's cache (SQLite's writer thread; PostgreSQL has none to set).
  const restoreCache = pipeline ? () => {} : core.store.sql.importCache(cacheKib);
  const stream = createReadStream(summary.file);
  const reader = createInterface({ input: stream, crlfDelay: Infinity });
  let batch: Array<ImportItem & { line: number }> = [];
  let bytes = 0;
  let lineNo = 0;
  let submittedThrough = resumedAfter;

  const skip = (line: number, message: string) => {
    summary.skipped++;
    if (summary.errors.length < MAX_REPORTED_ERRORS) summary.errors.push({ line, message });
    options.onBadLine?.(line, message);
  };

  const linesOf = (items: Array<{ line: number }>, throughLine: number) => items[0]?.line ?? throughLine;
  const failed = (first: number, throughLine: number, err: unknown) => new AppError(
    500,
    'import_batch_failed',
    'Import failed',
    `lines ${first}–${throughLine} could not be written (${(err as Error).message}); ` +
      `nothing from them was saved. Re-run the same command to continue from line ${first}.`,
  );
  const committed = (outcomes: Array<{ created: boolean; changed: boolean }>, throughLine: number) => {
    for (const o of outcomes) {
      if (o.created) summary.created++;
      else if (o.changed) summary.changed++;
      else summary.unchanged++;
    }
    options.onProgress?.({ lines: throughLine - resumedAfter, bytes: stream.bytesRead, totalBytes: size });
  };

  // Commits the batch and the progress marker (up to `throughLine`, which covers skipped lines too) together.
  const flush = async (throughLine: number) => {
    const items = batch;
    batch = [];
    bytes = 0;
    submittedThrough = throughLine;
    const first = linesOf(items, throughLine);
    if (pipeline) {
      const { batch: decided, outcomes } = await pipeline.prepare(items).catch((err) => {
        throw failed(first, throughLine, err);
      });
      await inFlight;
      const marker = progressQuery(core.db, key, throughLine, iso(core.clock.now()));
      inFlight = pipeline.commit(decided, [marker]).then(
        () => committed(outcomes, throughLine),
        (err) => { throw failed(first, throughLine, err); },
      );
      inFlight.catch(() => undefined); // handled: the next flush (or the end) awaits it and stops the import
      return;
    }
    let outcomes: Array<{ created: boolean; changed: boolean }>;
    try {
      outcomes = await putBatch(core, items, (trx) => recordProgress(trx, key, throughLine, iso(core.clock.now())));
    } catch (err) {
      throw failed(first, throughLine, err);
    }
    committed(outcomes, throughLine);
  };

  try {
    for await (const text of reader) {
      lineNo++;
      if (lineNo <= resumedAfter) continue;
      if (text.trim() === '') continue;
      try {
        batch.push({ ...parseImportLine(text), line: lineNo });
        bytes += text.length;
      } catch (err) {
        if (!(err instanceof LineError)) throw err;
        skip(lineNo, err.message);
      }
      if (batch.length >= batchSize || bytes >= batchBytes) await flush(lineNo);
    }
    summary.lines = lineNo;
    // The final flush also records progress for trailing skipped/blank lines, so a re-run has nothing left to do.
    if (lineNo > submittedThrough) await flush(lineNo);
    await inFlight;
    if (bulk) await finishBulkLoad(core, options.onRebuild);
    // PostgreSQL refreshes its planner's statistics (bulk-schema.ts).
    if (summary.created + summary.changed > 0) await core.store.sql.afterImport(core.db);
  } finally {
    await (inFlight as Promise<void> | null)?.catch(() => undefined); // settled before the file is let go
    reader.close();
    stream.destroy();
    restoreCache();
    pipeline?.close();
  }
  return summary;
}
