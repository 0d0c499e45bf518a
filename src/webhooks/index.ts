/**
 * `pix-usdt/webhooks`: verify and sign webhook deliveries, parse them into typed events, and
 * process each one once (`createWebhookHandler`, its stores and its Node, Express and Fastify
 * adapters), in the order of the state machines (`shouldApplySnapshot`).
 * Runs wherever WebCrypto does (Node 20+, browsers, Deno, Bun, Workers); on Node it uses
 * `node:crypto`, reached at run time without a static import.
 * @module
 */
export { constructEvent, EVENT_ID_HEADER, SIGNATURE_HEADER } from './construct.js';
export type { ConstructEventOptions, SeenEventStore } from './construct.js';
export { signPayload, verifySignature } from './signature.js';
export type { NowInput, SignatureHeaderValue, SignOptions, VerifyOptions, WebhookSecret } from './signature.js';
export {
  DuplicateEventError,
  isDuplicateEventError,
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
export { createWebhookHandler } from './receiver/handler.js';
export type {
  ConfirmClient,
  ConfirmedResource,
  WebhookAnswer,
  WebhookEventContext,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookInput,
  WebhookOutcome,
} from './receiver/handler.js';
export { createMemoryEventStore, WebhookLeaseLostError } from './receiver/store.js';
export type { ClaimOptions, ClaimResult, EventClaim, MemoryEventStoreOptions, WebhookEventStore } from './receiver/store.js';
export { createSqlEventStore, sqlEventStoreSchema } from './receiver/sql.js';
export type { SqlClient, SqlDatabase, SqlPoolClient, SqlEventStore, SqlEventStoreOptions, SqlQueryResult, SqlTransactionRunner } from './receiver/sql.js';
export { toNodeHandler } from './receiver/node.js';
export type { NodeRequestLike, NodeResponseLike } from './receiver/node.js';
export { expressWebhook, keepRawBody, toExpressHandler } from './receiver/express.js';
export type { ExpressAppLike, ExpressRequestLike } from './receiver/express.js';
export { fastifyWebhook } from './receiver/fastify.js';
export type { FastifyInstanceLike, FastifyReplyLike, FastifyRequestLike, FastifyWebhookOptions } from './receiver/fastify.js';
export { compareStates, isNewerState, isTerminalState, shouldApplySnapshot } from './order.js';
export type { OrderedResource, StateOrder, StateSnapshot } from './order.js';
