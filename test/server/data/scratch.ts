/**
 * Data folders and stores opened in process by a test file, closed and removed after each test
 * (modes restored first: a test may leave a folder read-only).
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import { type DataStore, type DataStoreOptions, openDataStore } from '../../../src/server/data/store.js';

export interface StoreScratch {
  /** A new empty folder, removed after the test. */
  tempDir(): string;
  /** `openDataStore(dir, ...)`, closed after the test unless the test closed it and said so with `closed`. */
  open(dir: string, options?: SandboxOptions, storeOptions?: DataStoreOptions): DataStore;
  /** A store the test closed itself: not closed again. */
  closed(store: DataStore): void;
}

/** Registers the cleanup in this file's `afterEach`; `defaults` are the sandbox options of `open`. */
export function storeScratch(prefix: string, defaults: SandboxOptions): StoreScratch {
  const dirs: string[] = [];
  const stores: DataStore[] = [];
  afterEach(() => {
    for (const store of stores.splice(0)) store.close();
    for (const dir of dirs.splice(0)) {
      if (existsSync(dir)) chmodSync(dir, 0o700);
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return {
    tempDir() {
      const dir = mkdtempSync(path.join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    open(dir, options = defaults, storeOptions = {}) {
      const store = openDataStore(dir, options, storeOptions);
      stores.push(store);
      return store;
    },
    closed(store) {
      stores.splice(stores.indexOf(store), 1);
    },
  };
}
