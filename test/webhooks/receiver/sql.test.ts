// The SQL store's own surface, on the run's real PostgreSQL server: pruning processed ids, the
// transactions it opens on a pg Pool (BEGIN, then COMMIT or ROLLBACK, and the connection given
// back or discarded), and its refusals. What every store must do is the shared suite (stores.test.ts).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type EventClaim, type SqlPoolClient, createSqlEventStore, createWebhookHandler } from '../../../src/webhooks/receiver/index.js';
import { postgresUrl } from '../../support/postgres.js';
import { SECRET } from '../helpers.js';
import { delivery, eventId } from '../receiver-helpers.js';

let pool: pg.Pool;
let tables = 0;
const table = () => `sql_events_${process.pid}_${++tables}`;

beforeAll(async () => {
  pool = new pg.Pool({ connectionString: await postgresUrl(inject('sharedScratch')), max: 4 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
});

describe('the SQL store', () => {
  it('prunes processed ids older than a date', async () => {
    const clock = { now: 1_000_000 };
    const store = createSqlEventStore({ db: pool, table: table(), now: () => clock.now });
    await store.migrate();
    const old = eventId();
    await store.complete((await store.claim(old, { leaseMs: 1000 })) as EventClaim, () => undefined);
    clock.now = 2_000_000;
    const recent = eventId();
    await store.complete((await store.claim(recent, { leaseMs: 1000 })) as EventClaim, () => undefined);
    expect(await store.prune(1_500_000)).toBe(1);
    expect((await store.claim(old, { leaseMs: 1000 })).status).toBe('claimed');
    expect((await store.claim(recent, { leaseMs: 1000 })).status).toBe('processed');
  });

  it('opens transactions on a pg Pool: BEGIN, COMMIT or ROLLBACK, the connection given back; a timed-out one is discarded', async () => {
    const log: string[] = [];
    const logged = {
      query: (text: string, params?: unknown[]) => pool.query(text, params),
      connect: async (): Promise<SqlPoolClient> => {
        const client = await pool.connect();
        return {
          query: (text: string, params?: unknown[]) => {
            if (/^(BEGIN|COMMIT|ROLLBACK)$/.test(text)) log.push(text);
            return client.query(text, params);
          },
          release: (error?: Error | boolean) => {
            log.push(error ? 'release(error)' : 'release');
            client.release(error);
          },
        };
      },
    };
    const store = createSqlEventStore({ db: logged, table: table() });
    await store.migrate();
    const fails = createWebhookHandler({ secret: SECRET, store, onEvent: () => Promise.reject(new Error('no')) });
    const works = createWebhookHandler({ secret: SECRET, store, onEvent: () => undefined });
    const hangs = createWebhookHandler({ secret: SECRET, store, onEventTimeoutMs: 100, onEvent: () => new Promise(() => undefined) });
    const id = eventId();
    expect((await fails(await delivery(id))).status).toBe(500);
    expect((await works(await delivery(id))).status).toBe(200);
    // Past the time limit the connection may still run the handler's query: it is closed, not reused.
    expect((await hangs(await delivery(eventId()))).status).toBe(503);
    expect(log).toEqual(['BEGIN', 'ROLLBACK', 'release', 'BEGIN', 'COMMIT', 'release', 'BEGIN', 'release(error)']);
  });

  it('refuses a database it cannot open a transaction on, a transaction it cannot query, and a table name that is not an identifier', async () => {
    expect(() => createSqlEventStore({ db: { query: () => Promise.resolve({ rows: [] }) } })).toThrow(/transaction/);
    expect(() => createSqlEventStore({ db: pool, table: 'events; DROP TABLE users' })).toThrow(/Invalid table name/);
    const store = createSqlEventStore({ db: pool, table: table(), transaction: (fn) => fn({} as never) });
    await store.migrate();
    const claim = (await store.claim(eventId(), { leaseMs: 1000 })) as EventClaim;
    await expect(store.complete(claim, () => undefined)).rejects.toThrow(/pass client/);
  });
});
