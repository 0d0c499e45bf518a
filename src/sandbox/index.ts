/**
 * `pix-usdt/sandbox`: the whole platform in memory, behind `fetch`.
 *
 * ```ts
 * const sandbox = createSandbox({ seed: 1, now: '2026-01-01T00:00:00Z' });
 * const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
 * await sandbox.clock.advance({ minutes: 15 });
 * ```
 *
 * A host keeps one in a SQLite database with {@link createStoredSandbox} (`serve --data`, a
 * Durable Object, your own server).
 * @module
 */
import { SandboxImpl } from './sandbox.js';
import { StoredSandboxImpl } from './stored-sandbox.js';
import type { SqlDriver } from './storage/sql.js';
import type { Sandbox, SandboxOptions, StoredSandbox, StoredSandboxOptions } from './types.js';

export type {
  Sandbox,
  SandboxClientOptions,
  SandboxEvents,
  SandboxOptions,
  SandboxTenant,
  SandboxTenantSettings,
  StoredSandbox,
  StoredSandboxOptions,
} from './types.js';
export type { SqlDriver, SqlValue } from './storage/sql.js';
export { StorageError } from './storage/port.js';
export { hasStoredSandbox } from './stored-sandbox.js';

export { ApiError, ERROR_STATUS, type ErrorCode } from './core/errors.js';
export { SandboxClosedError, isSandboxClosedError } from './closing.js';
export { CAPABILITIES, type Capability } from './core/capabilities.js';
export { DEFAULT_PRICING, type PricingSettings } from './core/pricing.js';
export { DEFAULT_LIMITS, type LimitPair, type LimitSettings } from './core/limits.js';
export { DEFAULT_TIMINGS, type LimitsPatch, type PlatformScope, type TimingSettings } from './core/settings.js';
export type { Duration, SandboxClock } from './core/clock.js';
export type { SandboxEvent, StateChange } from './core/state.js';
export type * from './inspector/types.js';
export type { SandboxSnapshot, TenantSnapshot } from './core/snapshot.js';
export {
  MAX_TENANT_DOCUMENT_CHARS,
  TENANT_DOCUMENT_FORMAT,
  TENANT_DOCUMENT_VERSION,
  type TenantDocument,
  TenantDocumentError,
  type TenantDocumentProblem,
} from './core/transfer.js';
export * from './plugins/webhooks/public.js';
export * from './plugins/faults/public.js';
export type { Answer, Call, HeaderReader, Middleware } from './http/call.js';
export { API_KEY_REFUSALS, type ApiKeyRefusal, type ApiKeyRefusalCode, readApiKey } from './http/authentication.js';
export { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE, type Machine, type Transition } from './core/machines.js';
export {
  SANDBOX_PIX_EMAIL,
  SANDBOX_PIX_EVP,
  SANDBOX_PIX_NOT_FOUND_EMAIL,
  SANDBOX_PIX_NOT_FOUND_EVP,
  SANDBOX_PIX_NOT_FOUND_PHONE,
  SANDBOX_PIX_PHONE,
} from './core/pix.js';
export { isValidCnpj, isValidCpf } from '../pix/documents.js';

/** Creates an in-process sandbox with one default tenant and its API key. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  return new SandboxImpl(options);
}

/**
 * Creates a sandbox whose state lives in a SQLite database, over your driver of it (three
 * methods: {@link SqlDriver}). The database is the truth: the first call on an empty database
 * writes the schema and a new sandbox (or `options.initial`), a later one on the same database
 * resumes it, every tenant with its data, keys, settings and pending timers. Every answered
 * mutation is committed before its answer leaves. Throws a {@link StorageError} (`foreign`,
 * `newer`), writing nothing, when the database is not a sandbox's or is newer than this code.
 *
 * @example
 * ```ts
 * import Database from 'libsql';
 *
 * const db = new Database('sandbox.db');
 * const sandbox = createStoredSandbox(
 *   {
 *     all: (sql, params = []) => db.prepare(sql).all(...params) as Array<Record<string, SqlValue>>,
 *     run: (sql, params = []) => void db.prepare(sql).run(...params),
 *     transaction: (fn) => db.transaction(fn)(),
 *   },
 *   { seed: 1, defer: setImmediate },
 * );
 * // ...serve sandbox.fetch; at the end:
 * await sandbox.close();
 * db.close();
 * ```
 */
export function createStoredSandbox(driver: SqlDriver, options: StoredSandboxOptions = {}): StoredSandbox {
  return new StoredSandboxImpl(driver, options);
}
