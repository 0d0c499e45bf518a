/**
 * Daily and monthly BRL volume limits at platform, partner (tenant) and user level. A
 * conversion (or a standalone transaction) reserves its BRL value at accept; liquidation moves
 * the reservation to the day and month in which it happens, at the new amount; cancel, expiry,
 * failure and abandonment release it. Usage is bucketed by the UTC day and month of the
 * reservation, so a release returns the amount to the bucket it is in.
 * @module
 */
import type { TransactionLimitReason } from '../../models/errors.js';
import { ApiError } from './errors.js';
import { fixed, fixedText } from './fixed.js';
import { flat } from './random.js';

/** A daily and a monthly ceiling in BRL (decimal strings). */
export interface LimitPair {
  /** Ceiling per UTC day, in BRL. */
  daily: string;
  /** Ceiling per UTC month, in BRL. */
  monthly: string;
}

/** Limits at each level. The user level applies to KYC-approved users; others have 0. */
export interface LimitSettings {
  /** The platform level: of each tenant on its own (default), or across every tenant of the sandbox (`platformScope: 'shared'`). */
  platform: LimitPair;
  /** `tenant` (default): each tenant is its own platform, as DESIGN's isolated world. `shared`: one platform usage for all tenants. */
  platformScope?: 'tenant' | 'shared';
  /** Per tenant (partner). */
  partner: LimitPair;
  /** Per end user of a tenant. */
  user: LimitPair;
}

/** Default limits (docs/sandbox.md). */
export const DEFAULT_LIMITS: Readonly<LimitSettings> = Object.freeze({
  platform: Object.freeze({ daily: '50000000.00', monthly: '1000000000.00' }),
  partner: Object.freeze({ daily: '5000000.00', monthly: '50000000.00' }),
  user: Object.freeze({ daily: '50000.00', monthly: '200000.00' }),
});

/**
 * Usage counters: bucket key -> BRL amount (decimal string). A stored tenant tracks the buckets
 * set or deleted (`changed`), so that a commit writes those counters only.
 */
export class Usage extends Map<string, string> {
  /** Buckets set or deleted since tracking started (`null`: not tracked). */
  changed: Set<string> | null = null;

  override set(key: string, value: string): this {
    this.changed?.add(key);
    return super.set(key, value);
  }

  override delete(key: string): boolean {
    this.changed?.add(key);
    return super.delete(key);
  }
}

/** What a conversion holds against the limits. */
export interface Reservation {
  reservedBrl: string;
  reservedAt: number;
}

function buckets(at: number): { day: string; month: string } {
  const d = new Date(at);
  return { day: `d${Math.floor(at / 86_400_000)}`, month: `m${d.getUTCFullYear() * 12 + d.getUTCMonth()}` };
}

// The bucket keys of one UTC day (the month follows from the day), kept for the last day and per
// user: the same flat strings on every reservation, whose hashes V8 keeps for the usage maps'
// lookups, instead of six new strings each time.
interface DayKeys {
  dayNumber: number;
  day: string;
  month: string;
  ownDay: string;
  ownMonth: string;
}

let lastDay: DayKeys | undefined;

function dayKeys(at: number): DayKeys {
  const dayNumber = Math.floor(at / 86_400_000);
  if (lastDay?.dayNumber !== dayNumber) {
    const { day, month } = buckets(at);
    lastDay = { dayNumber, day: flat(day), month: flat(month), ownDay: flat(`p${day}`), ownMonth: flat(`p${month}`) };
  }
  return lastDay;
}

const USER_KEYS = new Map<string, { dayNumber: number; day: string; month: string }>();

function userKeys(userId: string, keys: DayKeys): { day: string; month: string } {
  let kept = USER_KEYS.get(userId);
  if (kept?.dayNumber !== keys.dayNumber) {
    if (USER_KEYS.size >= 4096) USER_KEYS.clear();
    USER_KEYS.set(userId, (kept = { dayNumber: keys.dayNumber, day: flat(`u${userId}${keys.day}`), month: flat(`u${userId}${keys.month}`) }));
  }
  return kept;
}

/** Everything the limit checks need for one conversion. */
export interface LimitScope {
  settings: LimitSettings;
  platform: Usage;
  partner: Usage;
  userId: string;
  kycApproved: boolean;
}

function levels(scope: LimitScope, at: number): Array<{ usage: Usage; key: string; ceiling: string; label: string }> {
  const keys = dayKeys(at);
  const { day, month } = keys;
  const ofUser = userKeys(scope.userId, keys);
  const user = scope.kycApproved ? scope.settings.user : { daily: '0', monthly: '0' };
  // A tenant that is its own platform keeps the platform counters beside its own (`p` buckets).
  const shared = scope.settings.platformScope === 'shared';
  const platform = shared ? scope.platform : scope.partner;
  return [
    { usage: platform, key: shared ? day : keys.ownDay, ceiling: scope.settings.platform.daily, label: 'platform daily' },
    { usage: platform, key: shared ? month : keys.ownMonth, ceiling: scope.settings.platform.monthly, label: 'platform monthly' },
    { usage: scope.partner, key: day, ceiling: scope.settings.partner.daily, label: 'partner daily' },
    { usage: scope.partner, key: month, ceiling: scope.settings.partner.monthly, label: 'partner monthly' },
    { usage: scope.partner, key: ofUser.day, ceiling: user.daily, label: 'user daily' },
    { usage: scope.partner, key: ofUser.month, ceiling: user.monthly, label: 'user monthly' },
  ];
}

/**
 * Moves a reservation to `amount` BRL held in the buckets of `at` (default: where it is now),
 * checking every bucket that grows; returns the new reservation. Moved to another day or month
 * (a liquidation), the old amount leaves its buckets and the new one enters those of `at`.
 */
export function reserve(scope: LimitScope, current: Reservation, amount: string, at = current.reservedAt): Reservation {
  // Fixed-point (core/fixed.ts): the same sums and comparisons as big.js's, without a digit array per value.
  const next = fixed(amount);
  const old = fixed(current.reservedBrl);
  const from = levels(scope, current.reservedAt);
  const to = at === current.reservedAt ? from : levels(scope, at);
  const changes: Array<{ row: (typeof to)[number]; delta: bigint }> = [];
  to.forEach((row, i) => {
    const before = from[i] as (typeof from)[number];
    if (before.key === row.key) changes.push({ row, delta: next - old });
    else changes.push({ row: before, delta: -old }, { row, delta: next });
  });
  const values = changes.map(({ row, delta }) => {
    const used = row.usage.get(row.key);
    return used === undefined ? delta : delta + fixed(used);
  });
  changes.forEach(({ row, delta }, i) => {
    if (delta > 0n && (values[i] as bigint) > ceilingOf(row.ceiling)) {
      const limit = row.label.replace(' ', '_') as TransactionLimitReason;
      const kyc = limit.startsWith('user') && !scope.kycApproved;
      const why = kyc ? ': the user\'s KYC is not approved, so the user limit is 0. Approve the KYC first (sandbox: POST /v1/test_helpers/users/{id}/kyc with status approved)' : '';
      throw new ApiError('transaction_limit_exceeded', `The ${row.label} limit would be exceeded${why}.`, { reason: kyc ? 'kyc_not_approved' : limit, limit });
    }
  });
  changes.forEach(({ row }, i) => {
    const value = values[i] as bigint;
    if (value <= 0n) row.usage.delete(row.key);
    // The keys are flat strings (dayKeys, userKeys): a new bucket keeps one, not a template's pieces.
    else row.usage.set(row.key, fixedText(value, 2));
  });
  return { reservedBrl: fixedText(next, 2), reservedAt: at };
}

// Ceilings are settings, the same few strings on every reservation: read once each (bounded).
const CEILINGS = new Map<string, bigint>();

function ceilingOf(ceiling: string): bigint {
  let value = CEILINGS.get(ceiling);
  if (value === undefined) {
    if (CEILINGS.size >= 256) CEILINGS.clear();
    CEILINGS.set(ceiling, (value = fixed(ceiling)));
  }
  return value;
}

/**
 * Holds reservations on the platform's usage shared by every tenant (a fork under
 * `platformScope: 'shared'` holds what its records hold, so that releasing them later takes back
 * only what was held): all of them, or none when a daily or monthly bucket would pass its
 * ceiling (`transaction_limit_exceeded`, the usage left as it was).
 */
export function holdOnPlatform(usage: Usage, ceiling: LimitPair, holds: readonly Reservation[]): void {
  const totals = new Map<string, { amount: bigint; ceiling: string; label: string }>();
  for (const hold of holds) {
    const amount = fixed(hold.reservedBrl);
    if (amount <= 0n) continue;
    const { day, month } = buckets(hold.reservedAt);
    for (const [key, limit, label] of [[day, ceiling.daily, 'platform daily'], [month, ceiling.monthly, 'platform monthly']] as const) {
      const total = totals.get(key);
      if (total === undefined) totals.set(key, { amount: amount + fixed(usage.get(key) ?? '0'), ceiling: limit, label });
      else total.amount += amount;
    }
  }
  for (const { amount, ceiling: limit, label } of totals.values()) {
    if (amount > ceilingOf(limit)) throw new ApiError('transaction_limit_exceeded', `The ${label} limit would be exceeded.`, { reason: label.replace(' ', '_') as TransactionLimitReason, limit: label.replace(' ', '_') });
  }
  for (const [key, { amount }] of totals) usage.set(flat(key), fixedText(amount, 2));
}
