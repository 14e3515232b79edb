// The importer's batch write: the same records, times, embedded customers, search index, trip links and totals as
// putRecord gives line by line (write.ts), in a few statements per batch instead of about ten per line. It reads
// what the batch replaces with one query per resource, decides every line in memory (draft.ts), then writes each
// table with multi-row upserts and the totals as one delta each. No events: an import loads history silently.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Core } from '../core.js';
import { badRequest } from '../errors.js';
import { iso, type StoredRecords } from '../records/normalize.js';
import { addCountDeltas, bumpCountsQuery, rowFor, storedRow, tripLinks } from '../records/rows.js';
import { affectedApiResources, ASSIGNED_ID_MIN, type InputRecords, type Resource } from '../records/schemas.js';
import { hostIdProblem } from '../records/validate.js';
import { nextAssignedId, SEARCHABLE, searchIndexStatements, type Searchable }
  from '../store/dialect.js';
import { lockNames } from '../store/locks.js';
import type { Database, UntypedDb } from '../store/tables.js';
import { storedFor } from './draft.js';
import { rowsStatement } from '../store/rows-statement.js';
import { retryOnConflict, writeLockNames } from './locks.js';

type Db = Kysely<Database>;
type Row = Record<string, unknown>;
type Stored = StoredRecords[Resource];

export interface BulkItem {
  resource: Resource;
  id: number;
  input: InputRecords[Resource];
}

export interface BulkOutcome {
  created: boolean;
  changed: boolean;
}

/** Statement size: rows per multi-row INSERT (well under SQLite's and PostgreSQL's parameter limits). */
const CHUNK = 500;

const chunks = <T>(list: T[]): T[][] => Array.from({ length: Math.ceil(list.length / CHUNK) },
  (_, i) => list.slice(i * CHUNK, (i + 1) * CHUNK));

/** One batch in one transaction; `inTransaction` runs last in it (the importer's progress marker). */
export async function putBatch(
  core: Core,
  items: BulkItem[],
  inTransaction?: (trx: Db) => Promise<void>,
): Promise<BulkOutcome[]> {
  const names = items.flatMap((item) => writeLockNames(item.resource, item.id, item.input));
  const { batchTransaction, combineWrites } = core.store.sql;
  const write = async (trx: Db) => {
    const batch = new Batch(trx, iso(core.clock.now()), null);
    const outcomes = await batch.decide(items);
    const statements = batch.statements();
    for (const query of combineWrites?.(statements) ?? statements) await trx.executeQuery(query);
    await inTransaction?.(trx);
    return { outcomes, resources: batch.resources() };
  };
  const { outcomes, resources } = await retryOnConflict(() => batchTransaction
    ? batchTransaction(core.db, names, write) // PostgreSQL: fewer round trips (store/bulk-pg.ts)
    : core.db.transaction().execute(async (trx) => {
      await lockNames(trx, names);
      return await write(trx);
    }));
  announce(core, resources);
  return outcomes;
}

export function announce(core: Core, resources: Resource[]): void {
  if (resources.length) {
    core.bus.emit('records.changed', [...new Set([...resources, ...affectedApiResources(resources)])]);
  }
}

export class Batch {
  /** What each touched record is now, as this batch goes (null: absent). */
  readonly current = new Map<Resource, Map<number, Stored | null>>();
  /** What it was when the batch began: the write's "before" for the search index, trip links and totals. */
  private original = new Map<Resource, Map<number, Stored | null>>();
  private written = new Map<Resource, Set<number>>();
  lastAssigned: number | null;

  constructor(private readonly trx: Db, private readonly now: string, private inflight: Batch | null) {
    this.lastAssigned = inflight?.lastAssigned ?? null;
  }

  /** Decides every item in order: what it stores and whether it is new or changed. */
  async decide(items: BulkItem[]): Promise<BulkOutcome[]> {
    await this.load(items);
    const outcomes: BulkOutcome[] = [];
    for (const item of items) outcomes.push(await this.put(item.resource, item.id, item.input));
    this.inflight = null; // decided: let the batch before this one go
    return outcomes;
  }

  resources(): Resource[] {
    return [...this.written.keys()];
  }

  /** A record as the batch in flight leaves it, if it touched it (undefined: it did not). */
  private inFlight(resource: Resource, id: number): Stored | null | undefined {
    const m = this.inflight?.current.get(resource);
    return m?.has(id) ? m.get(id)! : undefined;
  }

  private table<T>(maps: Map<Resource, Map<number, T>>, resource: Resource): Map<number, T> {
    let m = maps.get(resource);
    if (!m) maps.set(resource, (m = new Map()));
    return m;
  }

  /** Reads every record the batch names (and the customers its bookings name by id) in one query per table. */
  private async load(items: BulkItem[]): Promise<void> {
    const wanted = new Map<Resource, Set<number>>();
    const want = (resource: Resource, id: number) => {
      let set = wanted.get(resource);
      if (!set) wanted.set(resource, (set = new Set()));
      set.add(id);
    };
    for (const item of items) {
      want(item.resource, item.id);
      const c = item.resource === 'bookings' ? (item.input as InputRecords['bookings']).customer : undefined;
      if (c?.id !== undefined) want('customers', c.id);
    }
    // One query per table, all at once: on PostgreSQL each goes to its own pooled connection.
    await Promise.all([...wanted].map(async ([resource, ids]) => {
      const current = this.table(this.current, resource);
      const original = this.table(this.original, resource);
      for (const id of ids) current.set(id, null);
      for (const part of chunks([...ids])) {
        const rows = await (this.trx as unknown as UntypedDb).selectFrom(resource).select(['id', 'data'])
          .where('id', 'in', part).execute() as Array<{ id: number; data: string }>;
        for (const row of rows) current.set(Number(row.id), JSON.parse(row.data) as Stored);
      }
      for (const id of ids) {
        const flying = this.inFlight(resource, id);
        if (flying !== undefined) current.set(id, flying);
      }
      for (const [id, rec] of current) original.set(id, rec);
    }));
  }

  private async put(resource: Resource, id: number, input: InputRecords[Resource]): Promise<BulkOutcome> {
    const current = this.table(this.current, resource);
    const previous = current.has(id) ? current.get(id)! : await this.read(resource, id);
    const booking = resource === 'bookings' ? (input as InputRecords['bookings']) : null;
    const customerId = booking?.customer ? await this.embeddedCustomer(booking.customer) : null;
    const { next, changed } = storedFor(resource, id, input, previous, this.now, customerId);
    if (changed) {
      current.set(id, next);
      let set = this.written.get(resource);
      if (!set) this.written.set(resource, (set = new Set()));
      set.add(id);
    }
    return { created: previous === null, changed };
  }

  /** A record the batch did not name up front (an embedded customer found by e-mail). */
  private async read(resource: Resource, id: number): Promise<Stored | null> {
    const row = await (this.trx as unknown as UntypedDb).selectFrom(resource).select('data')
      .where('id', '=', id).executeTakeFirst() as { data: string } | undefined;
    const flying = this.inFlight(resource, id);
    const rec = flying !== undefined ? flying : row ? (JSON.parse(row.data) as Stored) : null;
    this.table(this.current, resource).set(id, rec);
    this.table(this.original, resource).set(id, rec);
    return rec;
  }

  /** As write.ts resolveEmbeddedCustomer: by id (created if unknown), else by e-mail, else a new assigned id. */
  private async embeddedCustomer(c: NonNullable<InputRecords['bookings']['customer']>): Promise<number> {
    const fields = { email: c.email, first_name: c.first_name, last_name: c.last_name, phone: c.phone };
    const customers = this.table(this.current, 'customers');
    if (c.id !== undefined) {
      if ((customers.has(c.id) ? customers.get(c.id) : await this.read('customers', c.id)) != null) return c.id;
      const problem = hostIdProblem(c.id);
      if (problem) {
        throw badRequest('invalid_field', `customer.id ${problem}, or name a customer that exists`, {
          field: 'customer.id',
        });
      }
      await this.put('customers', c.id, fields);
      return c.id;
    }
    const email = c.email.toLowerCase();
    let found: number | null = null;
    const inBatch = [...customers, ...(this.inflight?.current.get('customers') ?? [])];
    for (const [id, rec] of inBatch) {
      if (rec && (rec as StoredRecords['customers']).email.toLowerCase() === email && (found === null || id < found)) {
        found = id;
      }
    }
    const stored = await this.trx.selectFrom('customers').select('id')
      .where('email', '=', email).orderBy('id').limit(1).executeTakeFirst();
    // A customer this batch already changed is judged by its new e-mail (above), not the stored one.
    const storedId = stored ? Number(stored.id) : null;
    const judged = storedId !== null && (customers.has(storedId) || this.inFlight('customers', storedId) !== undefined);
    if (storedId !== null && !judged && (found === null || storedId < found)) found = storedId;
    if (found !== null) return found;
    const id = await this.assignId();
    await this.put('customers', id, fields);
    return id;
  }

  private async assignId(): Promise<number> {
    // The batch before this one may have handed out ids it has not committed yet: count on from there.
    this.lastAssigned = await nextAssignedId(this.trx, ASSIGNED_ID_MIN, this.lastAssigned);
    return this.lastAssigned;
  }

  /** The statements that write what changed: rows, search index, trip links, totals (compiled, not run). */
  statements(): CompiledQuery[] {
    const db = this.trx as unknown as UntypedDb;
    const out: CompiledQuery[] = [];
    const rowsOf = (table: string, list: Array<Record<string, unknown>>) =>
      rowsStatement(db, table, Object.keys(list[0]), list, null);
    const deltas = new Map<string, number>();
    for (const [resource, ids] of this.written) {
      const rows: Row[] = [];
      const search: Array<{ id: number; text: string; replaces: boolean }> = [];
      const links: { next: ReturnType<typeof tripLinks>; replaced: number[] } = { next: [], replaced: [] };
      for (const id of ids) {
        const rec = this.table(this.current, resource).get(id)!;
        const before = this.table(this.original, resource).get(id) ?? null;
        const row = rowFor(resource, rec as never);
        const prevRow = before ? rowFor(resource, before as never) : null;
        rows.push(storedRow(this.trx, row));
        if ('search_text' in row && row.search_text !== prevRow?.search_text) {
          search.push({ id, text: row.search_text as string, replaces: prevRow !== null });
        }
        if (resource === 'bookings') {
          const next = tripLinks(row, rec as StoredRecords['bookings']);
          const prev = prevRow ? tripLinks(prevRow, before as StoredRecords['bookings']) : [];
          if (JSON.stringify(next) !== JSON.stringify(prev)) {
            if (prev.length) links.replaced.push(id);
            links.next.push(...next);
          }
        }
        addCountDeltas(deltas, resource, row, prevRow);
      }
      const columns = Object.keys(rows[0]).filter((c) => c !== 'id');
      for (const part of chunks(rows)) {
        out.push(rowsStatement(db, resource, ['id', ...columns], part, 'id'));
      }
      if ((SEARCHABLE as readonly string[]).includes(resource)) {
        out.push(...searchIndexStatements(db, resource as Searchable, search, CHUNK, rowsOf));
      }
      for (const part of chunks(links.replaced)) {
        out.push(db.deleteFrom('booking_trips').where('booking_id', 'in', part).compile());
      }
      for (const part of chunks(links.next)) {
        out.push(rowsOf('booking_trips', part));
      }
    }
    const bump = bumpCountsQuery(this.trx, deltas); // one statement, not one per total
    if (bump) out.push(bump);
    return out;
  }
}
