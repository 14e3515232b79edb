// Builds a Waypost on a fresh, migrated database with test configuration (quiet logs, private targets allowed).
import { createWaypost, type Waypost, type WaypostOptions } from '../../src/sdk.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import type { TestDialect } from './db.js';
import { migratedDatabaseUrl } from './db-template.js';

export interface TestWaypostOptions extends Omit<WaypostOptions, 'config'> {
  dialect?: TestDialect;
  config?: Partial<Config>;
}

export async function testWaypost(options: TestWaypostOptions = {}): Promise<Waypost> {
  // A copy of a migrated template (createWaypost's migrate then finds nothing to do): db-template.ts says why.
  const databaseUrl = await migratedDatabaseUrl(options.dialect ?? 'sqlite');
  return createWaypost({
    ...options,
    env: options.env ?? { WAYPOST_ALLOW_PRIVATE_TARGETS: 'true', WAYPOST_HOST_TOKEN: 'test-host-token' },
    logger: options.logger ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    config: { ...options.config, databaseUrl },
  });
}

export const HOST_AUTH = { authorization: 'Bearer test-host-token' };
export { loadConfig };
