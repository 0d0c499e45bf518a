// The partner backend's fault run (fault-run.ts) on a real PostgreSQL server, through DATABASE_URL:
// a database of its own on the run's server (test/support/postgres.ts), where the backend's pool
// runs its transactions on many connections at once.
import pg from 'pg';
import { inject } from 'vitest';
import { postgresUrl } from '../support/postgres.js';
import { faultRun } from './fault-run.js';

let url: string | undefined;

faultRun({
  name: 'a PostgreSQL server',
  kind: /^postgres$/,
  env: async () => {
    const server = new URL(await postgresUrl(inject('sharedScratch')));
    const name = `partner_backend_${process.pid}`;
    const admin = new pg.Client({ connectionString: server.href });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    server.pathname = `/${name}`;
    url = server.href;
    return { DATABASE_URL: url };
  },
  open: async () => {
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    return { rows: async <T>(sql: string) => (await pool.query(sql)).rows as T[], close: () => pool.end() };
  },
});
