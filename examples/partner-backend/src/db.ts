// The database: PGlite (Postgres in WASM, in a folder or in memory) by default, or a Postgres
// server when DATABASE_URL is set. Both speak the same SQL; the receiver kit's SQL store opens
// the transactions (PGlite's `transaction`, or a pg Pool's `connect` + BEGIN/COMMIT).
import { readFile } from 'node:fs/promises';
import type { SqlDatabase } from 'pix-usdt/webhooks/receiver';
import { sqlEventStoreSchema } from 'pix-usdt/webhooks/receiver';

/** An open database and how to close it. */
export interface Database {
  db: SqlDatabase;
  /** `pglite:<folder>`, `pglite:memory` or `postgres`: for the logs (never the URL, which holds a password). */
  kind: string;
  close(): Promise<void>;
}

/** Opens the database: `databaseUrl` (Postgres) wins over `dataDir` (PGlite in a folder); neither is PGlite in memory. */
export async function openDatabase(options: { databaseUrl?: string | undefined; dataDir?: string | undefined }): Promise<Database> {
  if (options.databaseUrl) {
    const { default: pg } = await import('pg');
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    return { db: pool, kind: 'postgres', close: () => pool.end() };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  // A new folder (or memory) runs initdb first: seconds. An existing folder reopens in under one.
  const lite = await PGlite.create(options.dataDir);
  return { db: lite, kind: `pglite:${options.dataDir ?? 'memory'}`, close: () => lite.close() };
}

/** Creates the tables (idempotent): the backend's, then the receiver kit's event table. */
export async function migrate(db: SqlDatabase): Promise<void> {
  const schema = await readFile(new URL('../schema.sql', import.meta.url), 'utf8');
  // One statement at a time: pg's extended protocol (parameters) takes one per query.
  for (const statement of schema.split(/;\s*$/m).map((s) => s.trim()).filter((s) => s !== '')) await db.query(statement);
  await db.query(sqlEventStoreSchema());
}
