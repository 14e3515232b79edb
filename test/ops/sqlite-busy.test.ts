// SQLite: another process holding the write lock for longer than busy_timeout (5 s) makes a write wait and then
// answer 503 database_unavailable with Retry-After (not 500); once the lock is gone the same write succeeds.
import { afterEach, describe, expect, it } from 'vitest';
import SqliteDatabase from 'better-sqlite3';
import { HOST_AUTH, testWaypost } from '../helpers/waypost.js';
import type { Waypost } from '../../src/sdk.js';

describe('a SQLite write lock held elsewhere', () => {
  let wp: Waypost;
  afterEach(async () => wp.close());

  it('answers 503 with Retry-After while another connection holds the lock, then succeeds', async () => {
    wp = await testWaypost({ dialect: 'sqlite' });
    const app = await wp.app();
    const other = new SqliteDatabase(wp.config.databaseUrl.slice('sqlite:'.length));
    other.exec('BEGIN IMMEDIATE');
    try {
      const busy = await app.inject({ method: 'PUT', url: '/host/v1/trips/1', headers: HOST_AUTH,
        payload: { title: 'T' } });
      expect(busy.statusCode).toBe(503);
      expect(busy.json()).toMatchObject({ code: 'database_unavailable', status: 503 });
      expect(busy.headers['retry-after']).toBe('1');
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    const ok = await app.inject({ method: 'PUT', url: '/host/v1/trips/1', headers: HOST_AUTH,
      payload: { title: 'T' } });
    expect(ok.statusCode).toBe(201);
  }, 20_000);
});
