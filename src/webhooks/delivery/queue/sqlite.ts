// The SQLite queue. SQLite serialises writers, so a claim is one UPDATE … RETURNING. Once a worker opens the queue,
// claims and successes run on the store's writer thread (src/store/sqlite-writer.ts): each claim reads the claimed
// deliveries' webhooks and events in its own transaction, and a batch of successes is one transaction, all off the
// main thread (better-sqlite3 is synchronous; those writes were a quarter of the worker's CPU per delivery). A
// process that never opens the queue (API, CLI) starts no thread: its statements run on the main connection.
import { sql, type CompiledQuery } from 'kysely';
import type { Core } from '../../../core.js';
import { readRows } from '../../../store/read.js';
import { slot, step, withValues } from '../../../store/prepared.js';
import type { SqliteWriter, WriteStep } from '../../../store/sqlite-writer.js';
import type { DeliveryAttemptRow, DeliveryRow, EventRow, WebhookRow, WebhookStatRow } from '../../tables.js';
import { statRows, upsertStats } from '../../stats/counts.js';
import { BaseQueue, claimStatement, claimedFrom, joinLoaded, markSucceeded, successEntries } from './base.js';
import type { ClaimRequest, Claimed, SuccessItem } from './types.js';

const ATTEMPT_COLUMNS = [
  'id', 'delivery_id', 'attempt', 'started_at', 'duration_ms', 'request_url', 'request_headers', 'request_body',
  'response_status', 'response_headers', 'response_body', 'error', 'success',
] as const satisfies ReadonlyArray<keyof DeliveryAttemptRow>;

export class SqliteQueue extends BaseQueue {
  protected readonly lockRows = false;
  protected readonly greatest = 'max';
  private readonly claimQuery: (r: ClaimRequest) => CompiledQuery;
  private readonly loadSteps: [WriteStep, WriteStep];
  private readonly successSteps: (items: readonly SuccessItem[], now: string) => WriteStep[];
  /** The writer thread, once a worker opened the queue. */
  private writer: SqliteWriter | null = null;

  constructor(core: Core) {
    super(core);
    const { db } = core;
    this.claimQuery = claimStatement(db, { postgres: false });
    // In the claim's transaction: the webhooks and events of the rows step 0 returned.
    const byJsonList = (table: 'webhooks' | 'events', column: string): WriteStep => ({
      ...step(db.selectFrom(table).selectAll()
        .where(sql<boolean>`id in (select value from json_each(${slot('ids')}))`).compile(), true),
      parameters: [],
      listFrom: { step: 0, column },
    });
    this.loadSteps = [byJsonList('webhooks', 'webhook_id'), byJsonList('events', 'event_id')];
    const row = Object.fromEntries(ATTEMPT_COLUMNS.map((c) => [c, slot(c)])) as unknown as DeliveryAttemptRow;
    const insert = withValues(db.insertInto('delivery_attempts').values(row).compile());
    const update = withValues(markSucceeded(db, slot('now'), [slot('id')]).compile());
    const statColumns = Object.keys(statRows([{ webhookId: '', atMs: 0, durationMs: 0, outcome: 'failed' }])[0]);
    const statRow = Object.fromEntries(statColumns.map((c) => [c, slot(c)])) as unknown as WebhookStatRow;
    const upsert = withValues(upsertStats(db, [statRow]).compile());
    // An ordered delivery's success makes the next of its record due (order.ts; SQLite's writes are serial).
    const at = slot('at') as unknown as number;
    const release = withValues(db.updateTable('deliveries').set({ waits_for: null, next_attempt_at: at })
      .where('waits_for', '=', slot('id')).where(sql<boolean>`status = 'pending'`).compile());
    this.successSteps = (items, now) => [
      ...items.flatMap(({ attempt, chain }) => [
        step(insert(attempt as unknown as Record<string, unknown>)),
        step(update({ now, id: attempt.delivery_id })),
        ...(chain ? [step(release({ at: Date.parse(now), id: attempt.delivery_id }))] : []),
      ]),
      // The batch's chart counters, in its transaction (a few rows per webhook: its minute, hour and health).
      ...statRows(successEntries(items)).map((r) => step(upsert(r as unknown as Record<string, unknown>))),
    ];
  }

  /** Starts the writer thread now rather than on the first claim (about 25 ms), when the file has one. */
  override async open(): Promise<void> {
    const { writer } = this.core.store;
    if (!writer) return; // an in-memory database: one connection only
    this.writer = writer;
    await writer.open();
  }

  async claim(request: ClaimRequest): Promise<Claimed[]> {
    if (request.limit <= 0) return [];
    const statement = this.claimQuery(request);
    let rows: DeliveryRow[];
    let loaded;
    if (this.writer) {
      const [claimed, webhooks, events] = await this.writer.transaction([step(statement, true), ...this.loadSteps]);
      rows = claimed as DeliveryRow[];
      loaded = joinLoaded(rows, webhooks as WebhookRow[], events as EventRow[]);
    } else {
      rows = await readRows<DeliveryRow>(this.core, statement);
      loaded = await this.withWebhooksAndEvents(rows);
    }
    return claimedFrom(rows, request, loaded);
  }

  /** On the writer thread once a worker opened it: the main connection would wait there for the writer's lock. */
  override async reserveSlots(webhookId: string, count: number, intervalMs: number, now: number): Promise<number> {
    if (!this.writer) return super.reserveSlots(webhookId, count, intervalMs, now);
    const statement = this.reserveStatement(webhookId, count, intervalMs, now);
    const [rows] = await this.writer.transaction([step(statement, true)]);
    return Number((rows as Array<{ next_slot_ms: number }>)[0].next_slot_ms) - count * intervalMs;
  }

  override async recordSuccesses(items: readonly SuccessItem[]): Promise<void> {
    if (items.length === 0) return;
    if (!this.writer) return super.recordSuccesses(items);
    await this.writer.transaction(this.successSteps(items, items[items.length - 1].now));
  }
}
