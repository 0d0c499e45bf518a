// The receiver kit in the transactions of the data layers partners use, on the run's real
// PostgreSQL server: postgres.js, Drizzle (node-postgres driver) and Kysely, each through
// `sqlTagClient` and the layer's own transaction (the recipes of docs/integration.md, as written
// there). For each: the partner's write (through the layer's own API) and the processed mark
// commit together; a handler that throws rolls both back and the retry commits them once; a
// claim taken over while its holder is inside the layer's transaction cannot commit.
import { sql as drizzleSql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { Kysely, PostgresDialect, sql as kyselySql } from 'kysely';
import pg from 'pg';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  type EventClaim,
  type WebhookEventStore,
  WebhookLeaseLostError,
  createSqlEventStore,
  createWebhookHandler,
  sqlTagClient,
} from '../../../src/webhooks/receiver/index.js';
import { postgresUrl } from '../../support/postgres.js';
import { SECRET } from '../helpers.js';
import { delivery, eventId } from '../receiver-helpers.js';

let url: string;
let admin: pg.Pool;
const closers: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  url = await postgresUrl(inject('sharedScratch'));
  admin = new pg.Pool({ connectionString: url, max: 2 });
}, 120_000);

afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  await admin?.end();
});

/** A data layer: its store (in its own transactions), and the partner's write through its API. */
interface Layer<Tx> {
  store: WebhookEventStore<Tx>;
  write(tx: Tx, eventId: string): Promise<unknown>;
}

async function ledger(table: string): Promise<string[]> {
  return (await admin.query<{ event_id: string }>(`SELECT event_id FROM ${table} ORDER BY event_id`)).rows.map((r) => r.event_id);
}

async function state(table: string, id: string): Promise<string | undefined> {
  return (await admin.query<{ state: string }>(`SELECT state FROM ${table} WHERE event_id = $1`, [id])).rows[0]?.state;
}

function layerSuite<Tx>(name: string, open: (events: string, ledgerTable: string) => Promise<Layer<Tx>>): void {
  describe(`the receiver kit in ${name}'s transactions`, () => {
    const events = `layer_events_${name.replace(/\W/g, '_').toLowerCase()}`;
    const ledgerTable = `${events}_ledger`;
    let layer: Layer<Tx>;

    beforeAll(async () => {
      await admin.query(`CREATE TABLE ${ledgerTable} (event_id text NOT NULL)`);
      layer = await open(events, ledgerTable);
    });

    it('commits the partner write and the processed mark together, and rolls both back together', async () => {
      let failFirst = true;
      const handler = createWebhookHandler<Tx>({
        secret: SECRET,
        store: layer.store,
        onEvent: async (event, { tx }) => {
          await layer.write(tx, event.id);
          if (failFirst) {
            failFirst = false;
            throw new Error('after the write');
          }
        },
      });
      const id = eventId();
      expect((await handler(await delivery(id))).status).toBe(500);
      expect(await ledger(ledgerTable)).toEqual([]);
      expect(await state(events, id)).toBe('processing');
      expect((await handler(await delivery(id))).status).toBe(200);
      expect(await ledger(ledgerTable)).toEqual([id]);
      expect(await state(events, id)).toBe('processed');
      expect(await (await handler(await delivery(id))).json()).toEqual({ received: true, duplicate: true });
      expect(await ledger(ledgerTable)).toEqual([id]);
    });

    it('refuses the late commit of a holder whose claim was taken over inside its transaction', async () => {
      const id = eventId();
      const stale = (await layer.store.claim(id, { leaseMs: 1 })) as EventClaim;
      await new Promise((resolve) => setTimeout(resolve, 5));
      const fresh = (await layer.store.claim(id, { leaseMs: 60_000 })) as EventClaim;
      expect(fresh).toMatchObject({ status: 'claimed', attempt: 2 });
      await expect(layer.store.complete(stale, (tx) => layer.write(tx, `${id}:stale`))).rejects.toBeInstanceOf(WebhookLeaseLostError);
      await layer.store.complete(fresh, (tx) => layer.write(tx, id));
      expect((await ledger(ledgerTable)).filter((e) => e.startsWith(id))).toEqual([id]);
    });
  });
}

layerSuite<postgres.TransactionSql>('postgres.js', async (table, ledgerTable) => {
  const sql = postgres(url, { max: 4, onnotice: () => undefined });
  closers.push(() => sql.end());
  const store = createSqlEventStore<postgres.TransactionSql>({
    table,
    db: sqlTagClient((strings, ...values) => sql(strings, ...(values as never[]))),
    transaction: (fn) => sql.begin(fn) as Promise<never>,
    client: (tx) => sqlTagClient((strings, ...values) => tx(strings, ...(values as never[]))),
  });
  await store.migrate();
  return { store, write: (tx, id) => tx`INSERT INTO ${tx(ledgerTable)} (event_id) VALUES (${id})` };
});

layerSuite('Drizzle (node-postgres)', async (table, ledgerTable) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  closers.push(() => pool.end());
  const db = drizzle({ client: pool });
  type DrizzleTx = Parameters<Parameters<typeof db.transaction>[0]>[0];
  const entries = pgTable(ledgerTable, { eventId: text('event_id').notNull() });
  const store = createSqlEventStore<DrizzleTx>({
    table,
    db: sqlTagClient((strings, ...values) => db.execute(drizzleSql(strings, ...values))),
    transaction: (fn) => db.transaction(fn),
    client: (tx) => sqlTagClient((strings, ...values) => tx.execute(drizzleSql(strings, ...values))),
  });
  await store.migrate();
  return { store, write: (tx: DrizzleTx, id: string) => tx.insert(entries).values({ eventId: id }) };
});

layerSuite('Kysely', async (table, ledgerTable) => {
  interface Database {
    [ledger: string]: { event_id: string };
  }
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 4 }) }) });
  closers.push(() => db.destroy());
  type KyselyTx = Parameters<Parameters<ReturnType<typeof db.transaction>['execute']>[0]>[0];
  const store = createSqlEventStore<KyselyTx>({
    table,
    db: sqlTagClient((strings, ...values) => kyselySql(strings, ...values).execute(db)),
    transaction: (fn) => db.transaction().execute(fn),
    client: (tx) => sqlTagClient((strings, ...values) => kyselySql(strings, ...values).execute(tx)),
  });
  await store.migrate();
  return { store, write: (tx: KyselyTx, id: string) => tx.insertInto(ledgerTable).values({ event_id: id }).execute() };
});
