/**
 * `sqlTagClient`: the SQL store's statements through the tagged template of the partner's data
 * layer (postgres.js's `sql`, Drizzle's and Kysely's `sql`, Prisma's `$queryRaw`), so that the store
 * runs in that layer's own transaction. No driver or ORM is imported: the caller passes its tag.
 * @module
 */
import type { SqlClient, SqlQueryResult } from './sql.js';

/**
 * Runs one tagged-template query: `(strings, ...values) => tx(strings, ...values)` (postgres.js),
 * `tx.execute(sql(strings, ...values))` (Drizzle), `sql(strings, ...values).execute(trx)` (Kysely),
 * `tx.$queryRaw(strings, ...values)` (Prisma). It answers rows: an array of them, or an object
 * with `rows` (a count, `rowCount` or `numAffectedRows`, is taken when present).
 */
export type SqlTag = (strings: TemplateStringsArray, ...values: unknown[]) => PromiseLike<unknown>;

const PLACEHOLDER = /\$(\d+)/g;

/** The result of a tagged query as the store reads it. */
function resultOf(answer: unknown): SqlQueryResult {
  if (Array.isArray(answer)) {
    const count = (answer as { count?: unknown }).count;
    return { rows: answer, rowCount: typeof count === 'number' ? count : undefined };
  }
  const shaped = (answer ?? {}) as { rows?: unknown; rowCount?: unknown; numAffectedRows?: unknown };
  const rows = Array.isArray(shaped.rows) ? (shaped.rows as unknown[]) : [];
  const counted = shaped.rowCount ?? shaped.numAffectedRows;
  return { rows, rowCount: typeof counted === 'number' || typeof counted === 'bigint' ? Number(counted) : undefined };
}

/**
 * A {@link SqlClient} whose `query(text, params)` runs through a data layer's tagged template:
 * `$1`, `$2`... become the template's values, in the order they appear (a number used twice is
 * passed twice), so the layer binds them as parameters, never as text. Give it to
 * {@link createSqlEventStore} as `db` (the layer's root handle) and as `client` (its transaction),
 * with the layer's transaction as `transaction`:
 *
 * @example
 * ```ts
 * import postgres from 'postgres';
 * import { createSqlEventStore, sqlTagClient } from 'pix-usdt/webhooks/receiver';
 *
 * const sql = postgres(process.env.DATABASE_URL!);
 * const store = createSqlEventStore<postgres.TransactionSql>({
 *   db: sqlTagClient((strings, ...values) => sql(strings, ...(values as never[]))),
 *   transaction: (fn) => sql.begin(fn) as Promise<never>,
 *   client: (tx) => sqlTagClient((strings, ...values) => tx(strings, ...(values as never[]))),
 * });
 * ```
 */
export function sqlTagClient(tag: SqlTag): SqlClient {
  return {
    async query(text: string, params: unknown[] = []): Promise<SqlQueryResult> {
      const strings: string[] = [];
      const values: unknown[] = [];
      let last = 0;
      for (const match of text.matchAll(PLACEHOLDER)) {
        const index = Number(match[1]) - 1;
        if (index < 0 || index >= params.length) throw new RangeError(`sqlTagClient: $${match[1]} has no parameter (${params.length} given)`);
        strings.push(text.slice(last, match.index));
        values.push(params[index]);
        last = (match.index ?? 0) + match[0].length;
      }
      strings.push(text.slice(last));
      const template = Object.assign([...strings], { raw: [...strings] }) as unknown as TemplateStringsArray;
      return resultOf(await tag(template, ...values));
    },
  };
}
