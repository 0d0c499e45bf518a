/**
 * The SQL store of a webhook receiver: one table of event ids, claimed with a lease, and the
 * "processed" mark written in the partner's own transaction, so that the side effect and the
 * mark commit together. No driver here: anything with `query(text, params)` and `$1` parameters
 * (pg, PGlite, and drivers of the same shape) fits.
 * @module
 */
import { type EventClaim, type WebhookEventStore, WebhookLeaseLostError, claimToken, isHandlerTimeoutError } from './store.js';

/** What a query answers: rows, and the count of rows changed (pg: `rowCount`; PGlite: `affectedRows` too). */
export interface SqlQueryResult {
  /** The rows returned (objects keyed by column name). */
  rows: readonly unknown[];
  /** Rows changed (pg; PGlite too). */
  rowCount?: number | null | undefined;
  /** Rows changed (PGlite). */
  affectedRows?: number | undefined;
}

/** Something that runs one parameterized query (`$1`, `$2`...): a pg `Pool`, `Client` or `PoolClient`, a PGlite instance or transaction. */
export interface SqlClient {
  /** Runs one statement with `$1`, `$2`... bound to `params`. */
  query(text: string, params?: unknown[]): Promise<SqlQueryResult>;
}

/**
 * A database the store can open transactions on: PGlite (`transaction(fn)`), a pg `Pool`
 * (`connect()` hands a client that runs `BEGIN`/`COMMIT`), or anything with either.
 */
export interface SqlDatabase extends SqlClient {
  /** PGlite's: runs `fn` in a transaction, committed when it resolves. */
  transaction?<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T>;
  /** A pg Pool's: a dedicated connection, given back with `release`. */
  connect?(): Promise<SqlPoolClient>;
}

/** A connection of a pool (pg's `PoolClient`). */
export interface SqlPoolClient extends SqlClient {
  /** Gives the connection back; with an error, the pool discards it. */
  release(error?: Error | boolean): void;
  /** pg's: the connection's `error` event (a connection lost while checked out), listened to during the transaction. */
  on?(event: 'error', listener: (error: Error) => void): unknown;
  /** pg's: removes the listener. */
  removeListener?(event: 'error', listener: (error: Error) => void): unknown;
}

/**
 * Runs `fn` in one transaction: commit when it resolves, roll back when it rejects. `Tx` is what
 * `fn` is handed: a {@link SqlClient}, or the transaction object of the partner's data layer
 * (postgres.js, Drizzle, Kysely, Prisma: see {@link SqlEventStoreOptions.client}).
 */
export type SqlTransactionRunner<Tx = SqlClient> = <T>(fn: (tx: Tx) => Promise<T>) => Promise<T>;

/** Options of {@link createSqlEventStore}. */
export interface SqlEventStoreOptions<Tx = SqlClient> {
  /** The database: claims and releases run on it, each one statement outside any transaction. */
  db: SqlDatabase;
  /**
   * How to open a transaction, when `db` has neither `transaction` nor `connect`, or to run in the
   * transactions of the partner's data layer (`(fn) => sql.begin(fn)` for postgres.js,
   * `(fn) => db.transaction().execute(fn)` for Kysely...): `onEvent` is then handed that layer's
   * transaction as `context.tx`, and {@link SqlEventStoreOptions.client} says how to query it.
   */
  transaction?: SqlTransactionRunner<Tx>;
  /** How to run the store's statement in a `Tx` of `transaction`, when a `Tx` has no `query(text, params)` of its own. */
  client?: (tx: Tx) => SqlClient;
  /** The table's name (a plain or schema-qualified identifier). Default `pix_usdt_webhook_events`. */
  table?: string;
  /** The clock of leases, in ms. Default `Date.now`. */
  now?: () => number;
}

/** The SQL store: a {@link WebhookEventStore} whose `complete` hands the work the transaction. */
export interface SqlEventStore<Tx = SqlClient> extends WebhookEventStore<Tx> {
  /** The table's name. */
  readonly table: string;
  /** Creates the table if it does not exist (run once at start-up, or take {@link sqlEventStoreSchema} into your migrations). */
  migrate(): Promise<void>;
  /** Runs `fn` in a transaction of the store's database (for the partner's other writes). */
  transaction: SqlTransactionRunner<Tx>;
  /** Deletes processed ids older than `before` (ms since the epoch); resolves with how many. */
  prune(before: number): Promise<number>;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?$/;

function checkTable(table: string): string {
  if (!IDENTIFIER.test(table)) throw new TypeError(`Invalid table name ${JSON.stringify(table)}: use letters, digits and _ (schema.table allowed)`);
  return table;
}

/**
 * The table of {@link createSqlEventStore} (PostgreSQL; SQLite accepts it too). One row per
 * event id: `processing` with a lease (its token and expiry, in ms) or `processed`.
 */
export function sqlEventStoreSchema(table = 'pix_usdt_webhook_events'): string {
  checkTable(table);
  return `CREATE TABLE IF NOT EXISTS ${table} (
  event_id text PRIMARY KEY,
  event_type text,
  state text NOT NULL,
  lease_token text,
  lease_expires_at bigint,
  attempts integer NOT NULL DEFAULT 1,
  last_error text,
  received_at bigint NOT NULL,
  processed_at bigint
)`;
}

function changed(result: SqlQueryResult): number {
  // pg and PGlite count changed rows; other layers answer the rows of `RETURNING`.
  return result.rowCount ?? result.affectedRows ?? result.rows.length;
}

function runnerOf(db: SqlDatabase): SqlTransactionRunner {
  if (typeof db.transaction === 'function') return (fn) => (db.transaction as NonNullable<SqlDatabase['transaction']>)(fn);
  if (typeof db.connect === 'function') {
    const connect = db.connect.bind(db);
    return async (fn) => {
      const client: SqlPoolClient = await connect();
      let failure: Error | undefined;
      // A connection lost while checked out (the server restarted, pg_terminate_backend) emits
      // `error`: unheard, that ends the process. Heard, the transaction's next query fails.
      const lost = (error: Error): void => {
        failure = error;
      };
      client.on?.('error', lost);
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        // Past the handler's time limit the work may still be running a query on this connection:
        // a ROLLBACK would wait behind it, and the connection must not serve anyone else. Closing it
        // (the pool discards it) ends the transaction on the server and fails the late queries.
        // A lost connection has no transaction left to roll back.
        if (isHandlerTimeoutError(error) || failure !== undefined) {
          failure ??= error as Error;
          throw error;
        }
        try {
          await client.query('ROLLBACK');
        } catch (rollback) {
          // A connection that cannot roll back is not given back to the pool.
          failure = rollback instanceof Error ? rollback : new Error(String(rollback));
        }
        throw error;
      } finally {
        client.removeListener?.('error', lost);
        client.release(failure);
      }
    };
  }
  throw new TypeError('createSqlEventStore needs a database that opens transactions: a PGlite instance, a pg Pool, or a `transaction` option');
}

/**
 * A store on a SQL database, usable inside the partner's own transaction: the handler gets the
 * transaction (`context.tx`), and the event is marked processed in it, so the side effect and
 * the mark commit together, or neither does (a crash, a failed handler).
 *
 * - `claim` is one statement outside any transaction: an insert, or the takeover of a released
 *   or expired claim. A second copy of an event finds it `in_progress` (or `processed`).
 * - `complete` runs the work, then, in the same transaction, marks the event processed under its
 *   claim's token: the fence. A handler whose claim was taken over (its lease expired, or the
 *   time limit released it) while it was still inside its transaction finds another token there,
 *   and its transaction rolls back ({@link WebhookLeaseLostError}). Until the work reaches the
 *   mark, the event's row is not locked: a takeover after the lease never waits behind a slow
 *   handler. After it, a concurrent claim waits for the commit, then finds the event processed.
 *   Read committed (PostgreSQL's default) is enough: the mark is one conditional `UPDATE` of one
 *   row, which PostgreSQL re-checks against the latest committed version; under repeatable read
 *   or serializable the same race fails the late commit with a serialization error instead.
 *
 * @example
 * ```ts
 * const db = new pg.Pool({ connectionString }); // or: await PGlite.create('./data')
 * const store = createSqlEventStore({ db });
 * await store.migrate();
 * const handler = createWebhookHandler({
 *   secret,
 *   store,
 *   onEvent: async (event, { tx }) => {
 *     await tx.query('UPDATE orders SET status = $2 WHERE conversion_id = $1', [event.data.object.id, event.data.object.status]);
 *   },
 * });
 * ```
 */
export function createSqlEventStore<Tx = SqlClient>(options: SqlEventStoreOptions<Tx>): SqlEventStore<Tx> {
  const { db } = options;
  const table = checkTable(options.table ?? 'pix_usdt_webhook_events');
  const now = options.now ?? Date.now;
  const transaction = options.transaction ?? (runnerOf(db) as unknown as SqlTransactionRunner<Tx>);
  const clientOf =
    options.client ??
    ((tx: Tx): SqlClient => {
      if (typeof (tx as Partial<SqlClient> | null)?.query !== 'function') {
        throw new TypeError('createSqlEventStore: this transaction has no query(text, params): pass client: (tx) => ({ query }) with the transaction option');
      }
      return tx as SqlClient;
    });

  return {
    table,
    transaction,
    async migrate() {
      await db.query(sqlEventStoreSchema(table));
    },
    async claim(eventId, { leaseMs, eventType }) {
      const token = claimToken();
      for (;;) {
        const at = now();
        const taken = await db.query(
          `INSERT INTO ${table} AS e (event_id, event_type, state, lease_token, lease_expires_at, attempts, received_at)
           VALUES ($1, $2, 'processing', $3, $4, 1, $5)
           ON CONFLICT (event_id) DO UPDATE SET lease_token = EXCLUDED.lease_token, lease_expires_at = EXCLUDED.lease_expires_at, attempts = e.attempts + 1
           WHERE e.state = 'processing' AND e.lease_expires_at <= $5
           RETURNING attempts`,
          [eventId, eventType ?? null, token, at + leaseMs, at],
        );
        const row = taken.rows[0] as Record<string, unknown> | undefined;
        if (row !== undefined) return { status: 'claimed', eventId, token, attempt: Number(row['attempts']) };
        const found = await db.query(`SELECT state, lease_expires_at FROM ${table} WHERE event_id = $1`, [eventId]);
        const current = found.rows[0] as Record<string, unknown> | undefined;
        // Pruned between the two statements: claim again.
        if (current === undefined) continue;
        if (current['state'] === 'processed') return { status: 'processed', eventId };
        return { status: 'in_progress', eventId, leaseExpiresAt: Number(current['lease_expires_at']) };
      }
    },
    complete<T>(claim: EventClaim, work: (tx: Tx) => T | Promise<T>): Promise<T> {
      return transaction(async (tx) => {
        const result = await work(tx);
        const marked = await clientOf(tx).query(
          `UPDATE ${table} SET state = 'processed', processed_at = $3, lease_token = NULL, lease_expires_at = NULL, last_error = NULL
           WHERE event_id = $1 AND lease_token = $2 AND state = 'processing'
           RETURNING event_id`,
          [claim.eventId, claim.token, now()],
        );
        if (changed(marked) !== 1) throw new WebhookLeaseLostError(claim.eventId);
        return result;
      });
    },
    async release(claim, error) {
      await db.query(
        `UPDATE ${table} SET lease_token = NULL, lease_expires_at = 0, last_error = $3
         WHERE event_id = $1 AND lease_token = $2 AND state = 'processing'`,
        [claim.eventId, claim.token, error === undefined ? null : error.slice(0, 1000)],
      );
    },
    async prune(before) {
      return changed(await db.query(`DELETE FROM ${table} WHERE state = 'processed' AND processed_at < $1 RETURNING event_id`, [before]));
    },
  };
}
