/**
 * Webhook endpoints, deliveries and their test helpers in the sandbox.
 * @module
 */
export * from './public.js';
export { WebhookService, ATTEMPT_TIMER, signingSecrets } from './service.js';
export { webhookRoutes } from './routes.js';
export { webhooksPlugin, type WebhookRecords } from './plugin.js';
export { DELIVERY_LOG_SIZE } from './store.js';
export type { CircuitView } from './circuit.js';
