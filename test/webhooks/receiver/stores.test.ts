// The shared store suite (store-suite.ts) on each store a partner can use: the memory store,
// PGlite (real PostgreSQL, one connection: every transaction after the other), and a pg Pool of
// 12 connections on the run's real PostgreSQL server (test/support/postgres.ts), where two copies
// of one delivery are claimed on two connections at once, a lease is taken over while the first
// holder's transaction is open, and a connection can be terminated mid-transaction.
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { type SqlClient, type SqlDatabase, type WebhookEventStore, createMemoryEventStore, createSqlEventStore } from '../../../src/webhooks/receiver/index.js';
import { postgresUrl } from '../../support/postgres.js';
import { type StoreHarness, storeSuite } from './store-suite.js';

let lite: PGlite;
let pool: pg.Pool;
let tables = 0;

beforeAll(async () => {
  // Both at once: PGlite's first open runs initdb in WASM; the server may still be starting.
  const [url, opened] = await Promise.all([postgresUrl(inject('sharedScratch')), PGlite.create()]);
  lite = opened;
  pool = new pg.Pool({ connectionString: url, max: 12 });
}, 120_000);

afterAll(async () => {
  await Promise.all([lite?.close(), pool?.end()]);
});

/** A store on `db` with its own event table and ledger table. */
async function sqlHarness(db: SqlDatabase & { query: SqlClient['query'] }): Promise<StoreHarness> {
  const clock = { now: Date.now() };
  const table = `events_${process.pid}_${++tables}`;
  const store = createSqlEventStore({ db, table, now: () => clock.now });
  await store.migrate();
  await db.query(`CREATE TABLE ${table}_ledger (event_id text NOT NULL, amount numeric NOT NULL)`);
  return {
    store: store as WebhookEventStore<unknown>,
    clock,
    credit: async (tx, id) => {
      await (tx as SqlClient).query(`INSERT INTO ${table}_ledger (event_id, amount) VALUES ($1, '10.00')`, [id]);
    },
    ledger: async () => (await db.query(`SELECT event_id FROM ${table}_ledger ORDER BY event_id`, [])).rows.map((r) => (r as { event_id: string }).event_id),
    row: async (id) => (await db.query(`SELECT state, attempts, last_error FROM ${table} WHERE event_id = $1`, [id])).rows[0] as Record<string, unknown> | undefined,
  };
}

storeSuite({
  name: 'the memory store',
  transactional: false,
  connections: Number.POSITIVE_INFINITY,
  storm: { events: 10, copies: 5 },
  make: async () => {
    const clock = { now: Date.now() };
    const entries: string[] = [];
    return {
      store: createMemoryEventStore({ now: () => clock.now }) as WebhookEventStore<unknown>,
      clock,
      credit: async (_tx, id) => void entries.push(id),
      ledger: async () => [...entries].sort(),
    };
  },
});

storeSuite({
  name: 'PGlite (one connection)',
  transactional: true,
  connections: 1,
  storm: { events: 10, copies: 5 },
  make: () => sqlHarness(lite),
});

storeSuite({
  name: 'a pg Pool of 12 connections on a real PostgreSQL server',
  transactional: true,
  connections: 12,
  storm: { events: 20, copies: 10 },
  make: () => sqlHarness(pool),
  terminate: async (tx) => {
    const { rows } = await (tx as SqlClient).query('SELECT pg_backend_pid() AS pid');
    await pool.query('SELECT pg_terminate_backend($1)', [(rows[0] as { pid: number }).pid]);
  },
  opened: () => pool.totalCount,
});
