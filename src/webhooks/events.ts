import type { Conversion, Transaction } from '../models/conversions.js';
import type { EventType } from '../models/platform.js';
import type { User } from '../models/users.js';
import { fail } from './errors.js';

/** The envelope of every event: `data.object` is the resource as it was at the state change. */
export interface EventEnvelopeOf<TType extends string, TObject> {
  /** The event id; the same value as the `X-Service-Event-Id` header. Dedupe on it. */
  id: string;
  /** The event kind. */
  type: TType;
  /** When the state change happened (ISO 8601, UTC). */
  created_at: string;
  /** The snapshot of the resource. */
  data: { object: TObject };
}

type EventsOf<TTypes extends string, TObject> = { [K in TTypes]: EventEnvelopeOf<K, TObject> }[TTypes];

/** Kinds `conversion.*` of the reference's catalog. */
export type ConversionEventType = Extract<EventType, `conversion.${string}`>;
/** Kinds `transaction.*` of the reference's catalog. */
export type TransactionEventType = Extract<EventType, `transaction.${string}`>;
/** Kinds `user.kyc_*` of the reference's catalog. */
export type UserEventType = Extract<EventType, `user.${string}`>;

/** A `conversion.*` event: `data.object` is the Conversion. */
export type ConversionEvent = EventsOf<ConversionEventType, Conversion>;
/**
 * `transaction.sending_pix`: a Pix payout was dispatched (an offramp funded, or an offramp
 * liquidated). `data.object` is the Conversion, since an offramp's payout has no Transaction
 * record (docs/decisions.md, "Sandbox").
 */
export type PixPayoutEvent = EventEnvelopeOf<'transaction.sending_pix', Conversion>;
/** `transaction.completed` and `transaction.failed`: `data.object` is the Transaction. */
export type TransactionEvent = EventsOf<Exclude<TransactionEventType, 'transaction.sending_pix'>, Transaction>;
/** A `user.kyc_*` event: `data.object` is the User. */
export type UserEvent = EventsOf<UserEventType, User>;
/** An event of a kind this version of the SDK knows. */
export type KnownEvent = ConversionEvent | PixPayoutEvent | TransactionEvent | UserEvent;

/**
 * The type of a kind this version of the SDK does not know yet (kinds are added additively).
 * Branded so that `event.type === 'conversion.completed'` narrows to the known event alone.
 */
export type UnknownEventType = `${string}.${string}` & { readonly __unknownEventType: true };

/** An event of a kind added after this version of the SDK: a typed fallback. */
export type UnknownEvent = EventEnvelopeOf<UnknownEventType, Record<string, unknown>>;

/**
 * A verified event, discriminated on `type`.
 *
 * @example
 * ```ts
 * switch (event.type) {
 *   case 'conversion.completed': fulfil(event.data.object.id); break; // a Conversion
 *   case 'user.kyc_approved': enable(event.data.object.external_id); break; // a User
 *   default: log(event.type); // any other kind, including ones added later
 * }
 * ```
 */
export type WebhookEvent = KnownEvent | UnknownEvent;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * @internal Parses the JSON envelope with a hand-written check: the resource inside is not
 * validated (no zod here, to keep this entry small), only the envelope the types promise.
 */
export function parseEvent(text: string): WebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail('invalid_payload', 'The body is not valid JSON');
  }
  const data = isObject(value) ? value['data'] : undefined;
  if (
    !isObject(value) ||
    typeof value['id'] !== 'string' ||
    value['id'] === '' ||
    typeof value['type'] !== 'string' ||
    typeof value['created_at'] !== 'string' ||
    !isObject(data) ||
    !isObject(data['object'])
  ) {
    fail('invalid_payload', 'The body is not an event envelope { id, type, created_at, data: { object } }');
  }
  return value as unknown as WebhookEvent;
}
