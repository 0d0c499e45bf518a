/**
 * The webhook plugin: delivery of every recorded event to the tenant's endpoints, its routes
 * (/v1/webhook_endpoints, /v1/webhook_deliveries), its retry timer and the test API.
 * @module
 */
import type { RecordTable } from '../../core/persist.js';
import type { Platform } from '../../core/platform.js';
import type { SandboxPlugin } from '../../http/plugin.js';
import { webhookRoutes } from './routes.js';
import { WebhooksExtension } from './schema.js';
import { WebhookService } from './service.js';
import { WEBHOOKS_EXTENSION } from './store.js';
import { webhookTestApi } from './test-api.js';
import type { TenantState } from '../../core/state.js';
import type { CircuitView } from './circuit.js';
import type { DeliveryRec, EndpointRec, SandboxWebhooks, WebhookDeliveryOptions, WebhookTransport } from './types.js';

/** Read access to the webhook records, for the inspector (wiring): records are not to be changed. */
export interface WebhookRecords {
  /** A tenant's endpoints and deliveries (empty without any endpoint ever created). */
  of(tenant: TenantState): { endpoints: readonly EndpointRec[]; deliveries: readonly DeliveryRec[] };
  /** A delivery by id. */
  delivery(tenant: TenantState, id: string): DeliveryRec | undefined;
  /** Calls `listener` on each new delivery and recorded attempt; returns the unsubscribe function. */
  subscribe(listener: (tenantId: string, delivery: DeliveryRec) => void): () => void;
  /** The endpoint's circuit (circuit.ts). */
  circuit(tenant: TenantState, endpoint: EndpointRec): CircuitView;
  /** When the schedule made a delivery due, if its endpoint's circuit is delaying it; else `null`. */
  deferredSince(tenant: TenantState, delivery: DeliveryRec): number | null;
}

/** Builds the webhook plugin over a platform (it subscribes to the platform's events). */
export function webhooksPlugin(
  platform: Platform,
  transport?: WebhookTransport,
  options?: WebhookDeliveryOptions,
  deliveryLogSize?: number,
): SandboxPlugin<SandboxWebhooks> & { records: WebhookRecords } {
  const service = new WebhookService(platform, transport, options, deliveryLogSize);
  const records: WebhookRecords = {
    of: (tenant) => {
      const store = service.storeIfAny(tenant);
      return store === undefined ? { endpoints: [], deliveries: [] } : { endpoints: store.endpoints.all(), deliveries: store.deliveries.all() };
    },
    delivery: (tenant, id) => service.storeIfAny(tenant)?.deliveries.get(id),
    subscribe(listener) {
      service.changes.add(listener);
      return () => service.changes.delete(listener);
    },
    circuit: (tenant, endpoint) => service.circuitOf(tenant, endpoint),
    deferredSince: (tenant, delivery) => service.deferredSince(tenant.id, delivery),
  };
  // Stored as rows of their own (a stored sandbox); in a snapshot they sit in `extensions.webhooks`.
  const kinds: RecordTable = {
    webhook_endpoint: { collection: (t) => service.storeIfAny(t)?.endpoints, at: { extension: WEBHOOKS_EXTENSION, field: 'endpoints' } },
    webhook_delivery: { collection: (t) => service.storeIfAny(t)?.deliveries, at: { extension: WEBHOOKS_EXTENSION, field: 'deliveries' } },
  };
  return {
    api: webhookTestApi(platform, service),
    routes: webhookRoutes(service),
    timers: service.timers,
    recordKinds: kinds,
    extensions: { [WEBHOOKS_EXTENSION]: WebhooksExtension },
    records,
    close: (reason) => service.close(reason),
  };
}
