/**
 * Webhook endpoints, deliveries and their test helpers in the sandbox.
 * @module
 */
export * from './public.js';
export { WebhookService, ATTEMPT_TIMER, signingSecrets } from './service.js';
export { WEBHOOK_ROUTES } from './routes.js';
