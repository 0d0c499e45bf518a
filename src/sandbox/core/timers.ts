/**
 * Timers as one table: for each kind, where its records live (`load`), when a record is due
 * (`due`, `null` when it is not waiting for that timer) and what falling due does (`fire`).
 * Firing and restore both read it: a timer whose record moved on (another state, another
 * deadline) does nothing, since timers are never cancelled, only outdated; restore re-creates
 * every timer from `due`. Plugins add kinds of their own (`webhook.attempt`) with the same shape.
 * @module
 */
import Big from 'big.js';
import type { Timer } from './clock.js';
import { applyConversion } from './conversions.js';
import { moveQuote } from './quotes.js';
import type { ConversionRec, QuoteRec, TenantState, TransactionRec, UserRec } from './state.js';
import { applyTransaction } from './transactions.js';
import { applyKyc } from './users.js';
import { STANDBY_MS } from './settings.js';
import type { Scope } from './world.js';

/** Where a kind's records live: what `Collection` offers. */
export interface TimerRecords<R> {
  get(id: string): R | undefined;
  all(): Iterable<R>;
}

/** One kind of timer. */
export interface TimerDef<R extends { id: string } = { id: string }> {
  /** The tenant's records of this kind (`undefined`: none, e.g. a plugin never used). */
  load(tenant: TenantState): TimerRecords<R> | undefined;
  /** When the record's timer falls due, or `null` when it waits for none. */
  due(record: R): number | null;
  /** What falling due does (called only when `due(record)` is the timer's instant). */
  fire(scope: Scope, record: R): void;
}

/** Timer kinds and their rows. */
export type TimerTable = Record<string, TimerDef<never>>;

/** Declares a row with its record type inferred. */
export function timer<R extends { id: string }>(def: TimerDef<R>): TimerDef<never> {
  return def as unknown as TimerDef<never>;
}

/** The platform's own timers. */
export const CORE_TIMERS = {
  'quote.ttl': timer<QuoteRec>({
    load: (t) => t.quotes,
    due: (q) => (q.status === 'active' ? q.expiresAt : null),
    fire: (s, q) => moveQuote(s, q, 'ttl_passes'),
  }),
  'conversion.window': timer<ConversionRec>({
    load: (t) => t.conversions,
    due: (c) => (c.status === 'awaiting_deposit' ? c.windowExpiresAt : null),
    fire: (s, c) => applyConversion(s, c, new Big(c.received).gt(0) ? 'window_passes_funded' : 'window_passes_empty'),
  }),
  'conversion.standby': timer<ConversionRec>({
    load: (t) => t.conversions,
    due: (c) => (c.status === 'standby' && c.standbyAt !== null ? c.standbyAt + STANDBY_MS : null),
    fire: (s, c) => applyConversion(s, c, 'standby_window_passes'),
  }),
  'conversion.settle': timer<ConversionRec>({
    load: (t) => t.conversions,
    due: (c) => ((c.status === 'funded' || c.status === 'liquidated') && c.settleAt !== null ? c.settleAt : null),
    fire: (s, c) => applyConversion(s, c, 'settle'),
  }),
  'transaction.expire': timer<TransactionRec>({
    load: (t) => t.transactions,
    due: (x) => (x.status === 'pending_payment' && x.conversionId === null ? x.expiresAt : null),
    fire: (s, x) => applyTransaction(s, x, 'expire'),
  }),
  'transaction.settle': timer<TransactionRec>({
    load: (t) => t.transactions,
    due: (x) => (x.status === 'payment_received' && x.conversionId === null && x.settleAt !== null ? x.settleAt : null),
    fire: (s, x) => applyTransaction(s, x, 'settle'),
  }),
  'user.kyc_expiry': timer<UserRec>({
    load: (t) => t.users,
    due: (u) => (u.kycStatus === 'approved' && u.kycExpiresAt !== null ? u.kycExpiresAt : null),
    fire: (s, u) => applyKyc(s, u, 'approval_lapses'),
  }),
} satisfies TimerTable;

/** Fires one timer at its due time (`scope.at`); an outdated timer does nothing. */
export function fireTimer(table: TimerTable, scope: Scope, t: Timer): void {
  const def = table[t.kind] as TimerDef | undefined;
  const record = def?.load(scope.tenant)?.get(t.id);
  if (def && record && def.due(record) === t.at) def.fire(scope, record);
}

/** Re-creates every timer of a tenant from its records (restore). */
export function rescheduleAll(table: TimerTable, tenant: TenantState, schedule: (at: number, kind: string, id: string) => void): void {
  tenant.clock.clearTimers();
  for (const [kind, def] of Object.entries(table) as Array<[string, TimerDef]>) {
    const records = def.load(tenant);
    if (!records) continue;
    for (const record of records.all()) {
      const at = def.due(record);
      if (at !== null) schedule(at, kind, record.id);
    }
  }
}
