/**
 * The records the engine stores, kept compact (timestamps as epoch milliseconds, derived
 * fields such as deposit addresses and Pix codes computed on output), and the state of a
 * tenant: an isolated world with its own data, keys, idempotency records, rate-limit
 * windows, event log and clock.
 * @module
 */
import type {
  ConversionStatus,
  EventEnvelope,
  FailureReason,
  KycStatus,
  PixKeyType,
  QuoteStatus,
  StandbyReason,
  TransactionStatus,
} from '../../models/index.js';
import type { Clock } from './clock.js';
import { Collection } from './collection.js';
import type { Usage } from './limits.js';
import type { Direction } from './pricing.js';

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

/** An API key. The secret never leaves the engine except in creation and rotation answers. */
export interface KeyRec {
  id: string;
  tenantId: string;
  secret: string;
  name: string;
  capabilities: string[];
  createdAt: number;
  revokedAt: number | null;
}

/** An answer body kept compact (a version of a record, core/versions.ts): `text()` rebuilds it byte for byte. */
export interface CompactBody {
  text(): string;
}

/** The body of a stored answer as text. */
export function bodyText(body: string | CompactBody | null): string | null {
  return body === null || typeof body === 'string' ? body : body.text();
}

/**
 * An idempotency record: the first answer to a key, or the fact that it is still running. Kept
 * compact, since a tenant holds one per mutation for 24 hours: the request's fingerprint is a
 * number, the answer's headers are only kept when they are not the usual JSON ones, and the
 * `x-request-id` is kept as its value (snapshots keep the full form: core/snapshot.ts).
 */
export interface IdempotencyRec {
  key: string;
  /** cyrb53 of method, path, query and body: the same key with another request is refused. */
  fingerprint: number;
  startedAt: number;
  /** HTTP status of the first answer; 0 while the request runs. */
  status: number;
  /** Body of the first answer: its text, or a record's version that rebuilds it (core/versions.ts). */
  body: string | CompactBody | null;
  /** `x-request-id` of the first answer (a replay answers it again). */
  requestId: string;
  /** Headers of the first answer other than `x-request-id`; `null` for `content-type: application/json` alone. */
  headers: Record<string, string> | null;
}

/** A recorded event: the envelope of DESIGN.md. */
export type SandboxEvent = EventEnvelope & { type: string };

/** An entry of a tenant's event log (compact: core/event-log.ts); `envelope()` is the event as emitted. */
export interface LoggedEvent {
  readonly id: string;
  readonly type: string;
  /** The `id` of the event's object. */
  readonly objectId: string;
  envelope(): SandboxEvent;
}

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
  idempotency: Map<string, IdempotencyRec>;
  /** Idempotency records in creation order, for expiry from the head (a record no longer in the map is skipped). */
  idempotencyOrder: IdempotencyRec[];
  idempotencyHead: number;
  /** Accepted POST /v1/quotes times per API key id (sliding window). */
  rateWindows: Map<string, number[]>;
  usage: Usage;
  /** The event log, oldest first (trimmed to `eventLogSize`, in batches). */
  events: LoggedEvent[];
  /** State kept by later layers (webhook endpoints and deliveries, fault plans); JSON only. */
  extensions: Record<string, unknown>;
}

/** Creates an empty tenant. */
export function createTenantState(id: string, clock: Clock): TenantState {
  return {
    id,
    clock,
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
    idempotency: new Map(),
    idempotencyOrder: [],
    idempotencyHead: 0,
    rateWindows: new Map(),
    usage: new Map(),
    events: [],
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
