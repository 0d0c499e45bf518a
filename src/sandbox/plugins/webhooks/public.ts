/**
 * What `pix-usdt/sandbox` exports of webhook delivery.
 * @module
 */
export { RETRY_SCHEDULE_SECONDS } from './types.js';
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
} from './types.js';
