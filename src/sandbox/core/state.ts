/**
 * The records the sandbox stores, kept compact (timestamps as epoch milliseconds, derived
 * fields such as deposit addresses and Pix codes computed on output), and the state of a
 * tenant: an isolated world with its own data, keys, idempotency records, rate-limit
 * windows, event log and clock.
 * @module
 */
import type {
  ConversionStatus,
  FailureReason,
  KycStatus,
  PixKeyType,
  QuoteStatus,
  StandbyReason,
  TransactionStatus,
} from '../../models/index.js';
import type { Clock } from './clock.js';
import { Collection } from './collection.js';
import { Usage } from './limits.js';
import { type EventLog, type IdempotencyStore, MemoryEventLog, MemoryIdempotency } from './logs.js';
import type { Direction } from './pricing.js';
import type { OwnSettings, TenantSettings } from './settings.js';

/** A KYC submission (latest one of a user). */
export interface SubmissionRec {
  id: string;
  status: 'initiated' | 'in_review' | 'approved' | 'rejected' | 'expired';
  createdAt: number;
  submittedAt: number | null;
  resultAt: number | null;
  rejectionReason: string | null;
}

/** A user, its KYC state and its wallet. */
export interface UserRec {
  id: string;
  seq: number;
  externalId: string;
  name: string;
  email: string | null;
  dateOfBirth: string | null;
  cpf: string;
  kycStatus: KycStatus;
  kycApprovedAt: number | null;
  kycExpiresAt: number | null;
  metadata: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  deletedAt: number | null;
  submission: SubmissionRec | null;
  walletId: string;
  balance: string;
  walletUpdatedAt: number;
}

/** A quote. */
export interface QuoteRec {
  id: string;
  seq: number;
  userId: string;
  direction: Direction;
  sourceAmount: string;
  targetAmount: string;
  exchangeRate: string;
  spreadBps: number;
  feeUsdt: string;
  netTargetAmount: string;
  walletAddress: string | null;
  pixKey: string | null;
  pixKeyType: PixKeyType | null;
  holderName: string | null;
  holderDocument: string | null;
  pixVerifiedAt: number | null;
  status: QuoteStatus;
  expiresAt: number;
  consumedAt: number | null;
  consumedBy: string | null;
  createdAt: number;
}

/** A conversion. */
export interface ConversionRec {
  id: string;
  seq: number;
  userId: string;
  quoteId: string;
  liquidationQuoteId: string | null;
  direction: Direction;
  status: ConversionStatus;
  expected: string;
  received: string;
  targetAmount: string;
  windowExpiresAt: number;
  standbyAt: number | null;
  standbyReason: StandbyReason | null;
  /** When the Pix leg happened (onramp payment received, offramp payout dispatched). */
  pixAt: number | null;
  /** When the USDT leg happened (offramp deposit confirmed, onramp USDT sent). */
  usdtAt: number | null;
  /** When the pending settlement falls due (funded or liquidated). */
  settleAt: number | null;
  completedAt: number | null;
  failureReason: FailureReason | null;
  createdAt: number;
  updatedAt: number;
  reservedBrl: string;
  reservedAt: number;
  transactionId: string | null;
}

/** A transaction (settlement leg). */
export interface TransactionRec {
  id: string;
  seq: number;
  userId: string;
  quoteId: string;
  conversionId: string | null;
  status: TransactionStatus;
  sourceAmount: string;
  targetAmount: string;
  exchangeRate: string;
  walletAddress: string | null;
  pixPaidAt: number | null;
  usdtSentAt: number | null;
  settleAt: number | null;
  failureReason: string | null;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  expiresAt: number;
  /** BRL held against the limits (a standalone transaction until it ends; '0' for a conversion's). */
  reservedBrl: string;
  reservedAt: number;
}

/** An API key. The secret never leaves the sandbox except in creation and rotation answers. */
export interface KeyRec {
  id: string;
  tenantId: string;
  secret: string;
  name: string;
  capabilities: string[];
  createdAt: number;
  revokedAt: number | null;
}

export { type CompactBody, type IdempotencyRec, type LoggedEvent, type SandboxEvent, bodyText } from './logs.js';

/** The state of one tenant. */
export interface TenantState {
  id: string;
  clock: Clock;
  users: Collection<UserRec>;
  quotes: Collection<QuoteRec>;
  conversions: Collection<ConversionRec>;
  transactions: Collection<TransactionRec>;
  cpfIndex: Map<string, string>;
  externalIdIndex: Map<string, string>;
  keys: KeyRec[];
  /** Idempotency records by key (in memory, or read from storage: core/logs.ts). */
  idempotency: IdempotencyStore;
  /** Accepted POST /v1/quotes times per API key id (sliding window). */
  rateWindows: Map<string, number[]>;
  usage: Usage;
  /** The event log (in memory, or read from storage: core/logs.ts). */
  events: EventLog;
  /** State kept by later layers (webhook endpoints and deliveries, fault plans); JSON only. */
  extensions: Record<string, unknown>;
  /** The price feed, limits and timings in force (core/settings.ts): the sandbox's defaults overlaid with `ownSettings`. */
  settings: TenantSettings;
  /** What the tenant set itself (plain JSON, its snapshot part); `null`: nothing, the defaults apply. */
  ownSettings: OwnSettings | null;
}

/** Creates an empty tenant, under the sandbox's default settings (its event log keeps `eventLogSize` events). */
export function createTenantState(id: string, clock: Clock, settings: TenantSettings, eventLogSize: number): TenantState {
  return {
    id,
    clock,
    settings,
    ownSettings: null,
    users: new Collection<UserRec>({
      live: (u) => (u.deletedAt === null ? '1' : null),
      kyc_status: (u) => (u.deletedAt === null ? u.kycStatus : null),
    }),
    quotes: new Collection<QuoteRec>({ user_id: (q) => q.userId, status: (q) => q.status }),
    conversions: new Collection<ConversionRec>({
      user_id: (c) => c.userId,
      status: (c) => c.status,
      transaction_type: (c) => c.direction,
    }),
    transactions: new Collection<TransactionRec>({ user_id: (t) => t.userId, status: (t) => t.status }),
    cpfIndex: new Map(),
    externalIdIndex: new Map(),
    keys: [],
    idempotency: new MemoryIdempotency(),
    rateWindows: new Map(),
    usage: new Usage(),
    events: new MemoryEventLog(eventLogSize),
    extensions: {},
  };
}

/** A conversion's move on its machine, with or without an event (the inspector draws the path from these). */
export interface StateChange {
  /** The conversion's id. */
  id: string;
  /** The state before the move; `null` for the creation. */
  from: string | null;
  /** The state after the move. */
  to: string;
  /** The trigger of the machine's row. */
  trigger: string;
  /** The id of the event the move emitted, or `null` when the row emits none. */
  eventId: string | null;
  /** Type of that event, or `null`. */
  eventType: string | null;
  /** ISO 8601 instant on the tenant's clock. */
  at: string;
}
