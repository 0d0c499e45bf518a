/**
 * `pix-usdt/webhooks`: verify and sign webhook deliveries, and parse them into typed events.
 * Small enough for a browser or an edge function; the receiver kit (`createWebhookHandler`, its
 * stores, the Node, Express and Fastify adapters, the state-order helper) is
 * `pix-usdt/webhooks/receiver`.
 * Runs wherever WebCrypto does (Node 20+, browsers, Deno, Bun, Workers); on Node it uses
 * `node:crypto`, reached at run time without a static import.
 * @module
 */
export { constructEvent, EVENT_ID_HEADER, SIGNATURE_HEADER } from './construct.js';
export type { ConstructEventOptions } from './construct.js';
export { signPayload, verifySignature } from './signature.js';
export type { NowInput, SignatureHeaderValue, SignOptions, VerifyOptions, WebhookSecret } from './signature.js';
export {
  isWebhookVerificationError,
  WebhookVerificationError,
} from './errors.js';
export type { WebhookVerificationReason } from './errors.js';
export type { RawBody } from './body.js';
export type { HeaderRecord, HeadersInput } from './headers.js';
export type { CryptoEngine } from './hmac.js';
export type {
  ConversionEvent,
  ConversionEventType,
  PixPayoutEvent,
  EventEnvelopeOf,
  KnownEvent,
  TransactionEvent,
  TransactionEventType,
  UnknownEvent,
  UnknownEventType,
  UserEvent,
  UserEventType,
  WebhookEvent,
} from './events.js';
