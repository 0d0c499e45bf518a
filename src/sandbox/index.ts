/**
 * `pix-usdt/sandbox`: the whole platform in memory, behind `fetch`.
 *
 * ```ts
 * const sandbox = createSandbox({ seed: 1, now: '2026-01-01T00:00:00Z' });
 * const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
 * await sandbox.clock.advance({ minutes: 15 });
 * ```
 * @module
 */
import { SandboxImpl } from './sandbox.js';
import type { Sandbox, SandboxOptions } from './types.js';

export type { Sandbox, SandboxClientOptions, SandboxEvents, SandboxOptions, SandboxTenant, SandboxTenantSettings } from './types.js';

export { ApiError, ERROR_STATUS, type ErrorCode } from './core/errors.js';
export { SandboxClosedError, isSandboxClosedError } from './closing.js';
export { CAPABILITIES, type Capability } from './core/capabilities.js';
export { DEFAULT_PRICING, type PricingSettings } from './core/pricing.js';
export { DEFAULT_LIMITS, type LimitPair, type LimitSettings } from './core/limits.js';
export { DEFAULT_TIMINGS, type LimitsPatch, type PlatformScope, type TimingSettings } from './core/settings.js';
export type { Duration, SandboxClock } from './core/clock.js';
export type { SandboxEvent, StateChange } from './core/state.js';
export type * from './inspector/types.js';
export type { IdempotencySnapshot, SandboxSnapshot, TenantSnapshot } from './core/snapshot.js';
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
