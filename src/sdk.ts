// The in-process SDK: `import { createWaypost } from 'waypost'`. The HTTP Host API, the CLI and the server all
// build on this one object.
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { loadConfig, withOverrides, type Config, type Role } from './config.js';
import { Bus, systemClock, type Clock, type Core, type Filters, type SettingsReader } from './core.js';
import { getAdminSettings } from './admin/settings.js';
import { createLogger } from './log.js';
import { openStore } from './store/db.js';
import type { Searchable } from './store/dialect.js';
import { searchTextOf } from './records/rows.js';
import { migrate } from './store/migrate.js';
import { buildApp } from './app.js';
import { buildOpsApp } from './http/ops-app.js';
import { deleteRecord, putRecord, type PutResult } from './host/write.js';
import { runBatch, type BatchOperation, type BatchResult } from './host/batch.js';
import type { Resource } from './records/schemas.js';
import { closeWebhooks, installWebhooks, startWorker, type Worker } from './webhooks/index.js';
import { closeApi, installApi } from './api/install.js';
import { closePrivacy, installPrivacy } from './privacy/index.js';
import { KnownCommonSearches } from './api/search-memo.js';
import { startTracing, tracing } from './tracing/index.js';
import { findRecordIds } from './api/search-ids.js';

export interface WaypostOptions {
  /** Environment to read configuration from (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Overrides applied after the environment (tests pass their own schedule, URL, …). */
  config?: Partial<Config>;
  clock?: Clock;
  filters?: Filters;
  logger?: Logger;
  /** Run migrations on open (default true). */
  migrate?: boolean;
}

export interface Waypost {
  readonly core: Core;
  readonly config: Config;
  readonly filters: Filters;
  /** Upsert a trip, customer, booking, payment, enquiry or review (the same path as the Host API). */
  put<R extends Resource>(resource: R, id: number, body: unknown): Promise<PutResult<R>>;
  /** Remove a record; false if it did not exist. */
  delete(resource: Resource, id: number): Promise<boolean>;
  /** Many puts and deletes, each as on its own, in order (the Host API's POST /host/v1/batch). */
  batch(operations: BatchOperation[]): Promise<BatchResult[]>;
  /** Build the HTTP app (not listening); for `inject()` in tests or embedding. */
  app(): Promise<FastifyInstance>;
  /**
   * Start serving: the HTTP server (roles all/api) and the delivery worker (roles all/worker). With `metricsPort`
   * set, any role also listens there for /healthz, /readyz and /metrics (`metricsUrl`).
   */
  serve(role?: Role): Promise<{ url: string | null; metricsUrl: string | null }>;
  close(): Promise<void>;
}

export async function createWaypost(options: WaypostOptions = {}): Promise<Waypost> {
  const config: Config = withOverrides(loadConfig(options.env ?? process.env), options.config);
  const log = options.logger ?? createLogger(config.logLevel);
  const store = openStore(config.databaseUrl, {
    searchText: (table, data) => searchTextOf(table as Searchable, JSON.parse(data)),
  });
  const filters: Filters = options.filters ?? {};
  const settings: SettingsReader = {
    alertEmail: async () => (await getAdminSettings(core)).alert_email,
    logRetentionDays: async () => (await getAdminSettings(core)).log_retention_days,
    bodyRetentionDays: async () => {
      const s = await getAdminSettings(core);
      return { payload: s.payload_retention_days, response: s.response_retention_days };
    },
    auditRetentionDays: async () => (await getAdminSettings(core)).audit_retention_days,
  };
  const core: Core = {
    config, store, db: store.db, log, clock: options.clock ?? systemClock, bus: new Bus(), writeListeners: [], filters,
    settings, knownCommon: new KnownCommonSearches(),
    findRecordIds: (resource, search, limit) => findRecordIds(core, resource, search, limit),
  };
  try {
    if (options.migrate !== false) await migrate(store.db);
    // Process-wide, from the process's OTEL_* variables (not `options.env`): the SDK reads those itself.
    const traced = await startTracing(config.version, (message) => log.warn(`tracing: ${message}`));
    if (traced) log.info('tracing on: spans go to the exporter the OTEL_* variables name');
  } catch (err) {
    await store.close();
    throw err;
  }
  installWebhooks(core);
  installPrivacy(core); // after the webhooks: its listener bounds the change's events, recorded first
  installApi(core);

  let app: FastifyInstance | null = null;
  let opsApp: FastifyInstance | null = null;
  let worker: Worker | null = null;
  const getApp = async () => (app ??= await buildApp(core));

  return {
    core,
    config,
    filters,
    put: (resource, id, body) => putRecord(core, resource, id, body),
    delete: (resource, id) => deleteRecord(core, resource, id),
    batch: (operations) => runBatch(core, { operations }),
    app: getApp,
    async serve(role: Role = 'all') {
      let url: string | null = null;
      if (role === 'all' || role === 'api') {
        const a = await getApp();
        url = await a.listen({ port: config.port, host: config.host });
      }
      let metricsUrl: string | null = null;
      if (config.metricsPort !== null) {
        opsApp = await buildOpsApp(core);
        metricsUrl = await opsApp.listen({ port: config.metricsPort, host: config.host });
      }
      if (role === 'all' || role === 'worker') worker = await startWorker(core);
      return { url, metricsUrl };
    },
    async close() {
      if (worker) await worker.stop();
      if (app) await app.close();
      if (opsApp) await opsApp.close();
      await closePrivacy(core);
      await closeApi(core);
      await closeWebhooks(core);
      // The spans still buffered (the provider stays, for another Waypost in this process). A collector that is
      // down loses them, and never fails the close.
      await tracing()?.flush().catch((err: Error) => log.warn({ err }, 'tracing: the last spans were not exported'));
      await store.close();
    },
  };
}
