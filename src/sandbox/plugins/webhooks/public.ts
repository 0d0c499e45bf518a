/**
 * What `pix-usdt/sandbox` exports of webhook delivery.
 * @module
 */
export { DEFAULT_HOLD_BEHIND_FAILURES, RETRY_SCHEDULE_SECONDS } from './types.js';
export { DEFAULT_DELIVERY_CONCURRENCY, type DeliveryConcurrency } from './dispatcher.js';
export { DEFAULT_CIRCUIT, type CircuitOptions } from './circuit.js';
export type {
  DeliveredEvent,
  DeliveredFilter,
  PendingDelivery,
  ReceiverContext,
  SandboxWebhooks,
  WebhookDeliveryOptions,
  WebhookReceiver,
  WebhookRequest,
  WebhookResponse,
  WebhookTransport,
  WebhookTransportContext,
} from './types.js';
