/**
 * Once per vitest run: a scratch folder the package tests share (the packed tarball is made once
 * there, by whichever test needs it first: test/package/pack.ts, `packShared`), removed when the
 * run ends. Creating it costs nothing when no test packs. The run's PostgreSQL server
 * (test/support/postgres.ts, started by the first test that asks) is stopped here too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { stopPostgres } from './postgres.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared scratch folder (the packed tarball lives there). */
    sharedScratch: string;
  }
}

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-run-'));
  project.provide('sharedScratch', dir);
  return async () => {
    await stopPostgres(dir);
    rmSync(dir, { recursive: true, force: true });
  };
}
