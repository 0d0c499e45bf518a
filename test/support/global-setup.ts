/**
 * Once per vitest run: a scratch folder the package tests share (the packed tarball is made once
 * there, by whichever test needs it first: test/package/pack.ts, `packShared`), removed when the
 * run ends. Creating it costs nothing when no test packs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's shared scratch folder (the packed tarball lives there). */
    sharedScratch: string;
  }
}

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-run-'));
  project.provide('sharedScratch', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
