/**
 * `pix-usdt/webhooks/receiver`: process each webhook delivery once, on a server.
 * `createWebhookHandler` verifies (with `constructEvent` of `pix-usdt/webhooks`), claims the
 * event id in a store with a lease, runs your handler and marks the event processed together;
 * its memory and SQL event stores; adapters for Node's `http`, Express and Fastify (structural
 * types: no framework or driver imported); and the state-order helper (`shouldApplySnapshot`),
 * which keeps an older snapshot from overwriting a newer one.
 * No Node built-in is imported: the handler is also a `fetch` handler for Workers, Bun and Deno.
 * @module
 */
export { createWebhookHandler } from './handler.js';
export type {
  ConfirmClient,
  ConfirmedResource,
  WebhookAnswer,
  WebhookEventContext,
  WebhookHandler,
  WebhookHandlerOptions,
  WebhookInput,
  WebhookOutcome,
} from './handler.js';
export { createMemoryEventStore, WebhookHandlerTimeoutError, WebhookLeaseLostError } from './store.js';
export type { ClaimOptions, ClaimResult, EventClaim, MemoryEventStoreOptions, WebhookEventStore } from './store.js';
export { createSqlEventStore, sqlEventStoreSchema } from './sql.js';
export type { SqlClient, SqlDatabase, SqlPoolClient, SqlEventStore, SqlEventStoreOptions, SqlQueryResult, SqlTransactionRunner } from './sql.js';
export { sqlTagClient } from './tagged.js';
export type { SqlTag } from './tagged.js';
export { toNodeHandler } from './node.js';
export type { NodeRequestLike, NodeResponseLike } from './node.js';
export { expressWebhook, keepRawBody, toExpressHandler } from './express.js';
export type { ExpressAppLike, ExpressRequestLike } from './express.js';
export { fastifyWebhook } from './fastify.js';
export type { FastifyInstanceLike, FastifyReplyLike, FastifyRequestLike, FastifyWebhookOptions } from './fastify.js';
export { compareStates, isNewerState, isTerminalState, shouldApplySnapshot } from './order.js';
export type { OrderedResource, StateOrder, StateSnapshot } from './order.js';
