/**
 * The one assembly of a stored sandbox: the schema (storage/sql.ts), the storage port over the
 * host's driver (`SqlStorage`), the stored state (`Persistence`, ./stored.ts: the codec and the
 * commit rule) and the sandbox over them (`SandboxImpl`). `createStoredSandbox` (the public
 * entry), `serve --data` (src/server/data/store.ts) and the Durable Objects entry
 * (src/durable-object/) all build a stored sandbox here; none of them assembles one.
 * @module
 */
import { SandboxImpl } from './sandbox.js';
import { Persistence, type StoredOptions } from './stored.js';
import { type SqlDriver, SqlStorage, checkSchema, prepareSchema } from './storage/sql.js';
import type { StoredSandbox, StoredSandboxOptions } from './types.js';

/** What only `serve --data` hands a stored sandbox: not part of the public options. */
export interface StoredExtras {
  /** Platform values written with the first transaction of an empty database (the old data folder's import mark). */
  initialMeta?: Array<[name: string, value: string]>;
}

/**
 * Whether a database holds a stored sandbox, read without writing: `false` for an empty one (or
 * one whose schema was made but whose first state never committed). Throws a `StorageError`
 * (`foreign`, `newer`) when the database is not a sandbox's, or was written by a newer pix-usdt.
 */
export function hasStoredSandbox(driver: SqlDriver): boolean {
  return checkSchema(driver) === 'ours' && new SqlStorage(driver).meta().has('environment');
}

/** The sandbox `createStoredSandbox` builds, with what the server reads of it besides. */
export class StoredSandboxImpl extends SandboxImpl implements StoredSandbox {
  declare readonly persistence: Persistence;
  readonly #storage: SqlStorage;

  constructor(driver: SqlDriver, options: StoredSandboxOptions = {}, extras: StoredExtras = {}) {
    const { arm, defer, idleMs, maxTenants, initial, onWriteError, onWriteRecovered, onReadError, ...sandboxOptions } = options;
    // Checked (and made, when empty) before anything else: nothing is written to a database that is not ours.
    prepareSchema(driver);
    const storage = new SqlStorage(driver);
    const stored: StoredOptions = { storage };
    if (arm !== undefined) stored.arm = arm;
    if (defer !== undefined) stored.defer = defer;
    if (idleMs !== undefined) stored.idleMs = idleMs;
    if (maxTenants !== undefined) stored.maxTenants = maxTenants;
    if (initial !== undefined) stored.initial = initial;
    if (onWriteError !== undefined) stored.onWriteError = onWriteError;
    if (onWriteRecovered !== undefined) stored.onWriteRecovered = onWriteRecovered;
    if (onReadError !== undefined) stored.onReadError = onReadError;
    if (extras.initialMeta !== undefined) stored.initialMeta = extras.initialMeta;
    super(sandboxOptions, { stored: (parts) => new Persistence(parts, stored) });
    this.#storage = storage;
  }

  flush(): void {
    this.persistence.flushNow();
  }

  wakeUp(): void {
    this.persistence.wakeUp();
  }

  /** A platform value as stored (JSON), read from the database: the server's import mark. */
  storedValue(name: string): string | undefined {
    return this.#storage.meta().get(name);
  }
}
