/**
 * The `serve` flags that set how much the sandbox keeps of what is not a record
 * (`--event-log-size`, `--delivery-log-size`, `--request-log-size`, `--idempotency-ttl`): the
 * `createSandbox` options of the same names. Records (users, quotes, conversions, transactions,
 * keys, endpoints) are kept for the life of the server; docs/server-and-msw.md, "What it keeps".
 * @module
 */
import type { SandboxOptions } from '../../sandbox/index.js';

/** What the flags set, as `createSandbox` options. */
export type RetentionFlags = Pick<SandboxOptions, 'eventLogSize' | 'deliveryLogSize' | 'requestLogSize' | 'idempotencyTtlSeconds'>;

/** The raw values of the flags (commander's camel-cased names). */
export interface RawRetentionFlags {
  eventLogSize?: string | undefined;
  deliveryLogSize?: string | undefined;
  requestLogSize?: string | undefined;
  idempotencyTtl?: string | undefined;
}

function whole(flag: string, raw: string, max: number): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) < 1 || Number(raw) > max) {
    throw new RangeError(`${flag} must be a whole number from 1 to ${max}, got ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

/** Parses the flags; throws a `RangeError` naming the flag on any mistake. Absent flags leave the defaults. */
export function parseRetentionFlags(raw: RawRetentionFlags): RetentionFlags {
  const out: RetentionFlags = {};
  if (raw.eventLogSize !== undefined) out.eventLogSize = whole('--event-log-size', raw.eventLogSize, 10_000_000);
  if (raw.deliveryLogSize !== undefined) out.deliveryLogSize = whole('--delivery-log-size', raw.deliveryLogSize, 10_000_000);
  if (raw.requestLogSize !== undefined) out.requestLogSize = whole('--request-log-size', raw.requestLogSize, 1_000_000);
  if (raw.idempotencyTtl !== undefined) out.idempotencyTtlSeconds = whole('--idempotency-ttl', raw.idempotencyTtl, 31_536_000);
  return out;
}

/** The help lines of the flags (the CLI's `serve --help`). */
export const RETENTION_FLAGS = [
  ['--event-log-size <N>', 'events kept per tenant for the inspector and snapshots (default 10000)'],
  ['--delivery-log-size <N>', 'finished webhook deliveries kept per tenant, with their attempts; pending ones are always kept (default 10000)'],
  ['--request-log-size <N>', 'answered requests kept in the request log, for the inspector and the log feed backlog (default 1000)'],
  ['--idempotency-ttl <SECONDS>', 'how long an Idempotency-Key is remembered (default 86400, the reference\'s 24 hours)'],
] as const;
