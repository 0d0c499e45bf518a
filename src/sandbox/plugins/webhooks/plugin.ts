/**
 * The webhook plugin: delivery of every recorded event to the tenant's endpoints, its routes
 * (/v1/webhook_endpoints, /v1/webhook_deliveries), its retry timer and the test API.
 * @module
 */
import type { Platform } from '../../core/platform.js';
import type { SandboxPlugin } from '../../http/plugin.js';
import { webhookRoutes } from './routes.js';
import { WebhookService } from './service.js';
import { webhookTestApi } from './test-api.js';
import type { SandboxWebhooks, WebhookDeliveryOptions, WebhookTransport } from './types.js';

/** Builds the webhook plugin over a platform (it subscribes to the platform's events). */
export function webhooksPlugin(platform: Platform, transport?: WebhookTransport, options?: WebhookDeliveryOptions): SandboxPlugin<SandboxWebhooks> {
  const service = new WebhookService(platform, transport, options);
  return { api: webhookTestApi(platform, service), routes: webhookRoutes(service), timers: service.timers };
}
