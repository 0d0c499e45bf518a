// The partner backend's fault run (fault-run.ts) on its embedded default: PGlite in a folder, read
// back once the backend has stopped.
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { faultRun } from './fault-run.js';

faultRun({
  name: 'PGlite',
  kind: /^pglite:/,
  env: async (dataDir) => ({ DATA_DIR: join(dataDir, 'db') }),
  open: async (dataDir) => {
    const db = await PGlite.create(join(dataDir, 'db'));
    return { rows: async <T>(sql: string) => (await db.query<T>(sql)).rows, close: () => db.close() };
  },
});
