/**
 * The state machines, declared as data in the reference's shape: one row per
 * `{ from, trigger, to, event, effects }`, plus refusal rows that name the error a
 * disallowed move answers. One function ({@link step}) reads every table; a move that no
 * row allows answers 409 invalid_transaction_state, so it cannot happen by construction.
 * The effects are names; each service maps them to code (src/sandbox/services).
 * @module
 */
import type { ConversionStatus, EventType, KycStatus, QuoteStatus, StandbyReason, TransactionStatus } from '../../models/index.js';
import { ApiError, type ErrorCode } from './errors.js';

/** One allowed move. `from: null` is the creation. */
export interface Transition<S extends string, T extends string, E extends string> {
  /** The state the move starts from; `null` for the creation. */
  from: S | null;
  /** What causes the move (an API call, a helper, a timer). */
  trigger: T;
  /** The state after the move. */
  to: S;
  /** The one event this change emits (`null`: the catalog has no kind for it). */
  event: EventType | null;
  /** Names of the side effects the service runs with the move. */
  effects: readonly E[];
  /** For conversions entering standby: why. */
  reason?: StandbyReason;
}

/** A move refused with a specific error instead of invalid_transaction_state. */
export interface Refusal<S extends string, T extends string> {
  /** The state the move is refused in. */
  from: S;
  /** The refused trigger. */
  trigger: T;
  /** The error code answered. */
  error: ErrorCode;
  /** The error message answered. */
  message: string;
}

/** A machine: its transitions and refusals. */
export interface Machine<S extends string, T extends string, E extends string> {
  /** What the machine governs (`conversion`, `quote`, `transaction`, `KYC review`), used in messages. */
  name: string;
  /** The allowed moves. */
  transitions: ReadonlyArray<Transition<S, T, E>>;
  /** Moves refused with a specific error. */
  refusals: ReadonlyArray<Refusal<S, T>>;
}

/** The row for `trigger` from `from`; throws the refusal's error or invalid_transaction_state. */
export function step<S extends string, T extends string, E extends string>(
  machine: Machine<S, T, E>,
  from: S | null,
  trigger: T,
): Transition<S, T, E> {
  for (const row of machine.transitions) if (row.from === from && row.trigger === trigger) return row;
  for (const row of machine.refusals) if (row.from === from && row.trigger === trigger) throw new ApiError(row.error, row.message);
  throw new ApiError('invalid_transaction_state', refusalMessage(machine, from, trigger), { state: from });
}

// What a trigger does, worded after "can" (`Only a conversion in awaiting_deposit can be canceled`),
// by `machine:trigger` or by trigger. A trigger without wording reads as its name.
const ACTIONS: Record<string, string> = {
  accept: 'be created',
  cancel: 'be canceled',
  'transaction:cancel': 'be cancelled',
  deposit_detected: 'receive a deposit',
  deposit_confirmed_exact: 'receive a deposit',
  deposit_under: 'receive a deposit',
  deposit_over: 'receive a deposit',
  deposit_duplicate: 'receive a deposit',
  deposit_wrong_address: 'receive a deposit',
  deposit_in_standby: 'receive a deposit',
  deposit_late: 'receive a late deposit',
  pix_paid_exact: 'receive its Pix payment',
  window_passes_funded: 'reach the end of its deposit window',
  window_passes_empty: 'reach the end of its deposit window',
  expire: 'expire',
  expire_holding_funds: 'expire',
  settle: 'be settled',
  settlement_error: 'fail in settlement',
  liquidate: 'be liquidated',
  liquidate_onramp: 'be liquidated',
  standby_window_passes: 'be abandoned',
  fail: 'be marked failed',
  create: 'be created',
  consume: 'be accepted',
  ttl_passes: 'expire',
  user_deleted: 'be cancelled',
  pay: 'be paid',
  start: 'start',
  force_approved: 'be forced to approved',
  force_rejected: 'be forced to rejected',
  force_in_review: 'be forced to in_review',
  force_expired: 'be forced to expired',
  approval_lapses: 'lapse',
};

/**
 * invalid_transaction_state in words, from the machine's own table: which states allow the move
 * and which one the record is in (`Only a conversion in awaiting_deposit can be canceled; this
 * one is canceled.`).
 */
function refusalMessage(machine: Machine<string, string, string>, from: string | null, trigger: string): string {
  const action = ACTIONS[`${machine.name}:${trigger}`] ?? ACTIONS[trigger] ?? `take the step ${trigger}`;
  const states = [...new Set(machine.transitions.filter((row) => row.trigger === trigger && row.from !== null).map((row) => row.from as string))];
  const article = /^[aeiou]/i.test(machine.name) ? 'An' : 'A';
  const now = from === null ? 'this one does not exist yet' : `this one is ${from}`;
  if (states.length === 0) return `${article} ${machine.name} cannot ${action} through this call; ${now}.`;
  const list = states.length === 1 ? states[0] : `${states.slice(0, -1).join(', ')} or ${states[states.length - 1]}`;
  return `Only ${article.toLowerCase()} ${machine.name} in ${list} can ${action}; ${now}.`;
}

/** Triggers of the conversion machine. */
export type ConversionTrigger =
  | 'accept'
  | 'cancel'
  | 'deposit_detected'
  | 'deposit_confirmed_exact'
  | 'pix_paid_exact'
  | 'deposit_under'
  | 'deposit_over'
  | 'deposit_duplicate'
  | 'deposit_wrong_address'
  | 'deposit_late'
  | 'deposit_in_standby'
  | 'window_passes_funded'
  | 'window_passes_empty'
  | 'expire'
  | 'expire_holding_funds'
  | 'settle'
  | 'settlement_error'
  | 'liquidate'
  | 'liquidate_onramp'
  | 'standby_window_passes'
  | 'fail';

/** Effects of the conversion machine. */
export type ConversionEffect =
  | 'consume_quote'
  | 'open_deposit_window'
  | 'reserve_limit'
  | 'release_limit'
  | 'add_received'
  | 'confirm_usdt_deposit'
  | 'dispatch_pix'
  | 'record_pix_payment'
  | 'open_transaction'
  | 'schedule_settlement'
  | 'enter_standby'
  | 'take_liquidation_quote'
  | 'settle_wallet'
  | 'complete_transaction'
  | 'fail_transaction'
  | 'set_failure';

type C = Transition<ConversionStatus, ConversionTrigger, ConversionEffect>;
const standby = (from: ConversionStatus, trigger: ConversionTrigger, reason: StandbyReason, effects: ConversionEffect[]): C => ({
  from,
  trigger,
  to: 'standby',
  event: 'conversion.standby',
  effects: [...effects, 'enter_standby'],
  reason,
});
const fail = (from: ConversionStatus): C => ({
  from,
  trigger: 'fail',
  to: 'failed',
  event: 'conversion.failed',
  effects: ['release_limit', 'fail_transaction', 'set_failure'],
});

/** The conversion machine: the reference's table plus the sandbox's decisions (docs/decisions.md). */
export const CONVERSION_MACHINE: Machine<ConversionStatus, ConversionTrigger, ConversionEffect> = {
  name: 'conversion',
  transitions: [
    { from: null, trigger: 'accept', to: 'awaiting_deposit', event: 'conversion.created', effects: ['reserve_limit', 'consume_quote', 'open_deposit_window'] },
    { from: 'awaiting_deposit', trigger: 'cancel', to: 'canceled', event: 'conversion.canceled', effects: ['release_limit'] },
    // An unconfirmed deposit (helper `confirmed: false`) is only counted: the state waits.
    { from: 'awaiting_deposit', trigger: 'deposit_detected', to: 'awaiting_deposit', event: null, effects: ['add_received'] },
    {
      from: 'awaiting_deposit',
      trigger: 'deposit_confirmed_exact',
      to: 'funded',
      event: 'transaction.sending_pix',
      effects: ['add_received', 'confirm_usdt_deposit', 'dispatch_pix', 'schedule_settlement'],
    },
    // Onramp `funded` has no kind in the catalog: no event.
    {
      from: 'awaiting_deposit',
      trigger: 'pix_paid_exact',
      to: 'funded',
      event: null,
      effects: ['add_received', 'record_pix_payment', 'open_transaction', 'schedule_settlement'],
    },
    standby('awaiting_deposit', 'deposit_under', 'under_funded', ['add_received', 'confirm_usdt_deposit']),
    standby('awaiting_deposit', 'deposit_over', 'over_funded', ['add_received', 'confirm_usdt_deposit']),
    standby('awaiting_deposit', 'window_passes_funded', 'window_expired', []),
    standby('awaiting_deposit', 'deposit_duplicate', 'duplicate_deposit', ['add_received', 'confirm_usdt_deposit']),
    standby('awaiting_deposit', 'deposit_wrong_address', 'wrong_address', ['add_received', 'confirm_usdt_deposit']),
    // A deposit confirmed after the window closed but before the expiry was applied (helper
    // `late: true`). `expired` is terminal: a deposit to an expired conversion is refused (409).
    standby('awaiting_deposit', 'deposit_late', 'late_post_window', ['add_received', 'confirm_usdt_deposit']),
    // Late deposits in standby add to received_amount; no state change, no event.
    { from: 'standby', trigger: 'deposit_in_standby', to: 'standby', event: null, effects: ['add_received'] },
    { from: 'awaiting_deposit', trigger: 'window_passes_empty', to: 'expired', event: 'conversion.expired', effects: ['release_limit'] },
    { from: 'awaiting_deposit', trigger: 'expire', to: 'expired', event: 'conversion.expired', effects: ['release_limit'] },
    // The expire helper on a conversion holding money does what the window's end does: standby, limit kept.
    standby('awaiting_deposit', 'expire_holding_funds', 'window_expired', []),
    {
      from: 'funded',
      trigger: 'settle',
      to: 'completed',
      event: 'conversion.completed',
      effects: ['settle_wallet', 'complete_transaction'],
    },
    {
      from: 'funded',
      trigger: 'settlement_error',
      to: 'failed',
      event: 'conversion.failed',
      effects: ['release_limit', 'fail_transaction', 'set_failure'],
    },
    // Offramp: the Pix payout starts. Onramp: the Pix was received, USDT is bought; no catalog kind.
    {
      from: 'standby',
      trigger: 'liquidate',
      to: 'liquidated',
      event: 'transaction.sending_pix',
      effects: ['take_liquidation_quote', 'dispatch_pix', 'schedule_settlement'],
    },
    { from: 'standby', trigger: 'liquidate_onramp', to: 'liquidated', event: null, effects: ['take_liquidation_quote', 'schedule_settlement'] },
    {
      from: 'liquidated',
      trigger: 'settle',
      to: 'completed',
      event: 'conversion.completed',
      effects: ['settle_wallet', 'complete_transaction'],
    },
    {
      from: 'liquidated',
      trigger: 'settlement_error',
      to: 'failed',
      event: 'conversion.failed',
      effects: ['release_limit', 'fail_transaction', 'set_failure'],
    },
    { from: 'standby', trigger: 'standby_window_passes', to: 'abandoned', event: 'conversion.abandoned', effects: ['release_limit'] },
    fail('awaiting_deposit'),
    fail('funded'),
    fail('standby'),
    fail('liquidated'),
  ],
  refusals: [],
};

/** Triggers of the quote machine. */
export type QuoteTrigger = 'create' | 'consume' | 'ttl_passes' | 'user_deleted';

/** The quote machine. */
export const QUOTE_MACHINE: Machine<QuoteStatus, QuoteTrigger, never> = {
  name: 'quote',
  transitions: [
    { from: null, trigger: 'create', to: 'active', event: null, effects: [] },
    { from: 'active', trigger: 'consume', to: 'consumed', event: null, effects: [] },
    { from: 'active', trigger: 'ttl_passes', to: 'expired', event: null, effects: [] },
    { from: 'active', trigger: 'user_deleted', to: 'cancelled', event: null, effects: [] },
  ],
  refusals: [
    { from: 'expired', trigger: 'consume', error: 'quote_expired', message: 'The quote has expired; request a new one.' },
    { from: 'consumed', trigger: 'consume', error: 'quote_already_consumed', message: 'The quote has already been used.' },
  ],
};

/** Triggers of the transaction machine. */
export type TransactionTrigger = 'create' | 'pay' | 'expire' | 'cancel' | 'settle' | 'fail';

/**
 * Effects of the transaction machine. A standalone transaction (`POST /v1/transactions`) holds
 * its BRL value against the limits as a conversion does; a conversion's transaction holds
 * nothing (its conversion does).
 */
export type TransactionEffect = 'reserve_limit' | 'release_limit';

/** The transaction machine (settlement leg). */
export const TRANSACTION_MACHINE: Machine<TransactionStatus, TransactionTrigger, TransactionEffect> = {
  name: 'transaction',
  transitions: [
    { from: null, trigger: 'create', to: 'pending_payment', event: null, effects: ['reserve_limit'] },
    { from: 'pending_payment', trigger: 'pay', to: 'payment_received', event: null, effects: [] },
    { from: 'pending_payment', trigger: 'expire', to: 'expired', event: null, effects: ['release_limit'] },
    { from: 'pending_payment', trigger: 'cancel', to: 'cancelled', event: null, effects: ['release_limit'] },
    // Settlement buys and sends the USDT in one step: buying_crypto and sending_crypto are not shown.
    { from: 'payment_received', trigger: 'settle', to: 'completed', event: 'transaction.completed', effects: [] },
    { from: 'payment_received', trigger: 'fail', to: 'failed', event: 'transaction.failed', effects: ['release_limit'] },
  ],
  refusals: [],
};

/** Triggers of the KYC machine (the helper's outcomes, the creation and the expiry timer). */
export type KycTrigger = 'start' | 'force_approved' | 'force_rejected' | 'force_in_review' | 'force_expired' | 'approval_lapses';

const REVIEWABLE: KycStatus[] = ['pending', 'approved', 'rejected', 'expired'];
const forced = (trigger: KycTrigger, to: KycStatus, event: EventType): Array<Transition<KycStatus, KycTrigger, never>> =>
  REVIEWABLE.map((from) => ({ from, trigger, to, event: from === to ? null : event, effects: [] }));

/** The KYC machine. Forcing the status a user already has changes nothing and emits nothing. */
export const KYC_MACHINE: Machine<KycStatus, KycTrigger, never> = {
  name: 'KYC review',
  transitions: [
    { from: 'not_started', trigger: 'start', to: 'pending', event: 'user.kyc_pending', effects: [] },
    ...forced('force_approved', 'approved', 'user.kyc_approved'),
    ...forced('force_rejected', 'rejected', 'user.kyc_rejected'),
    ...forced('force_in_review', 'pending', 'user.kyc_pending'),
    ...forced('force_expired', 'expired', 'user.kyc_expired'),
    { from: 'approved', trigger: 'approval_lapses', to: 'expired', event: 'user.kyc_expired', effects: [] },
  ],
  refusals: (['force_approved', 'force_rejected', 'force_in_review', 'force_expired'] as const).map((trigger) => ({
    from: 'not_started' as const,
    trigger,
    error: 'invalid_transaction_state' as const,
    message: 'The user has no KYC submission; create the user with start_kyc (the default) to open one.',
  })),
};
