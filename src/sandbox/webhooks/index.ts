/**
 * Webhook endpoints, deliveries and their test helpers in the sandbox.
 * @module
 */
export { WebhookService, ATTEMPT_TIMER, signingSecrets } from './service.js';
export { WEBHOOK_ROUTES } from './routes.js';
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
