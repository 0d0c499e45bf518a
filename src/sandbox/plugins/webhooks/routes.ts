/**
 * /v1/webhook_endpoints and /v1/webhook_deliveries (docs/decisions.md, "Wire and models").
 * @module
 */
import {
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesParams,
  PlainListParams,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
} from '../../../models/index.js';
import type { Random } from '../../core/random.js';
import { ApiError, invalid } from '../../core/errors.js';
import type { World } from '../../core/world.js';
import { iso } from '../../core/wire.js';
import { listPage } from '../../http/list.js';
import { IdParams, NoBody } from '../../http/routes/shared.js';
import { type RouteDef, created, define, ok } from '../../http/routes/types.js';
import type { TenantState } from '../../core/state.js';
import type { WebhookService } from './service.js';
import { deliveryOut, endpointOut } from './serialize.js';
import type { EndpointRec } from './types.js';

const DEFAULT_GRACE_SECONDS = 86_400;

function liveEndpoint(webhooks: WebhookService, tenant: TenantState, id: string): EndpointRec {
  const endpoint = webhooks.store(tenant).endpoints.get(id);
  if (!endpoint || endpoint.deletedAt !== null) throw new ApiError('webhook_endpoint_not_found', `No webhook endpoint ${id}.`);
  return endpoint;
}

function newSecret(random: Random): string {
  return `whsec_${random.base62(32)}`;
}

const read = { capability: 'webhooks:read' } as const;
const write = { capability: 'webhooks:write' } as const;

/** Production keeps the reference's rule: https only (http:// is for loopback receivers of the sandbox). */
function checkUrl(platform: World, url: string | undefined): void {
  if (url !== undefined && platform.settings.environment === 'production' && !/^https:/i.test(url)) throw invalid('url', 'Expected an https:// URL');
}

/** Webhook endpoint and delivery routes, over one delivery service. */
export function webhookRoutes(webhooks: WebhookService): RouteDef[] {
  return [
    define({
      ...write,
      method: 'POST',
      path: '/v1/webhook_endpoints',
      body: CreateWebhookEndpointBody,
      handler({ platform, tenant, at, body }) {
        checkUrl(platform, body.url);
        const endpoint = webhooks.store(tenant).addEndpoint({
          id: platform.random.uuid(),
          seq: 0,
          url: body.url,
          status: 'active',
          eventTypes: [...new Set(body.event_types)],
          description: body.description ?? null,
          secret: newSecret(platform.random),
          previousSecret: null,
          previousSecretExpiresAt: null,
          createdAt: at,
          updatedAt: at,
          deletedAt: null,
        });
        return created({ ...endpointOut(endpoint), secret: endpoint.secret });
      },
    }),
    define({
      ...read,
      method: 'GET',
      path: '/v1/webhook_endpoints',
      query: PlainListParams,
      handler: ({ platform, tenant, query }) =>
        ok(
          listPage(platform, webhooks.store(tenant).endpoints, 'webhook_endpoints', query, {}, endpointOut, {
            index: ['live', '1'],
            test: () => true,
          }),
        ),
    }),
    define({
      ...read,
      method: 'GET',
      path: '/v1/webhook_endpoints/:id',
      params: IdParams,
      handler: ({ tenant, params }) => ok(endpointOut(liveEndpoint(webhooks, tenant, params.id))),
    }),
    define({
      ...write,
      method: 'PATCH',
      path: '/v1/webhook_endpoints/:id',
      params: IdParams,
      body: UpdateWebhookEndpointBody,
      handler({ platform, tenant, at, params, body }) {
        const endpoint = liveEndpoint(webhooks, tenant, params.id);
        checkUrl(platform, body.url);
        webhooks
          .store(tenant)
          .endpoints.update(endpoint, (e) => {
            if (body.url !== undefined) e.url = body.url;
            if (body.event_types !== undefined) e.eventTypes = [...new Set(body.event_types)];
            if (body.description !== undefined) e.description = body.description;
            if (body.status !== undefined) e.status = body.status;
            e.updatedAt = at;
          });
        return ok(endpointOut(endpoint));
      },
    }),
    define({
      ...write,
      method: 'DELETE',
      path: '/v1/webhook_endpoints/:id',
      params: IdParams,
      handler({ tenant, at, params }) {
        const endpoint = liveEndpoint(webhooks, tenant, params.id);
        webhooks
          .store(tenant)
          .endpoints.update(endpoint, (e) => {
            e.deletedAt = at;
            e.updatedAt = at;
          });
        return ok({ id: endpoint.id, deleted: true });
      },
    }),
    define({
      ...write,
      method: 'POST',
      path: '/v1/webhook_endpoints/:id/rotate_secret',
      params: IdParams,
      body: RotateWebhookSecretBody,
      handler({ platform, tenant, at, params, body }) {
        const endpoint = liveEndpoint(webhooks, tenant, params.id);
        const grace = body.grace_period_seconds ?? DEFAULT_GRACE_SECONDS;
        webhooks
          .store(tenant)
          .endpoints.update(endpoint, (e) => {
            // A second rotation within the grace period drops the oldest secret: two sign at most.
            e.previousSecret = grace > 0 ? e.secret : null;
            e.previousSecretExpiresAt = grace > 0 ? at + grace * 1000 : null;
            e.secret = newSecret(platform.random);
            e.updatedAt = at;
          });
        const expires = endpoint.previousSecretExpiresAt;
        return ok({ ...endpointOut(endpoint), secret: endpoint.secret, previous_secret_expires_at: expires === null ? null : iso(expires) });
      },
    }),
    define({
      ...read,
      method: 'GET',
      path: '/v1/webhook_endpoints/:id/deliveries',
      params: IdParams,
      query: ListWebhookDeliveriesParams,
      handler({ platform, tenant, params, query }) {
        const endpoint = liveEndpoint(webhooks, tenant, params.id);
        const id = endpoint.id;
        return ok(
          listPage(
            platform,
            webhooks.store(tenant).deliveries,
            `webhook_deliveries:${id}`,
            query,
            {
              status: { value: query.status === undefined ? undefined : `${id}|${query.status}`, index: 'endpoint_status', test: (d) => d.status === query.status },
              event_id: { value: query.event_id, index: 'event', test: (d) => d.eventId === query.event_id },
            },
            (d) => deliveryOut(d, webhooks.deferredSince(tenant.id, d)),
            { index: ['endpoint', id], test: (d) => d.endpointId === id },
          ),
        );
      },
    }),
    define({
      ...read,
      method: 'GET',
      path: '/v1/webhook_deliveries/:id',
      params: IdParams,
      handler({ tenant, params }) {
        const delivery = webhooks.store(tenant).deliveries.get(params.id);
        if (!delivery) throw new ApiError('webhook_delivery_not_found', `No webhook delivery ${params.id}.`);
        return ok(deliveryOut(delivery, webhooks.deferredSince(tenant.id, delivery)));
      },
    }),
    define({
      ...write,
      method: 'POST',
      path: '/v1/webhook_deliveries/:id/redeliver',
      params: IdParams,
      body: NoBody,
      handler({ tenant, at, params }) {
        const store = webhooks.store(tenant);
        const delivery = store.deliveries.get(params.id);
        if (!delivery) throw new ApiError('webhook_delivery_not_found', `No webhook delivery ${params.id}.`);
        const endpoint = store.endpoints.get(delivery.endpointId);
        if (!endpoint || endpoint.deletedAt !== null) throw new ApiError('invalid_transaction_state', 'The endpoint of this delivery was deleted.');
        if (endpoint.status !== 'active') throw new ApiError('invalid_transaction_state', 'The endpoint of this delivery is disabled.');
        // A new attempt now, then the retry schedule from its start if it fails.
        store.deliveries.update(delivery, (d) => {
          d.status = 'pending';
          d.failures = 0;
          d.nextAttemptAt = at;
          d.updatedAt = at;
        });
        webhooks.enqueue(tenant.id, delivery.id);
        return ok(deliveryOut(delivery, webhooks.deferredSince(tenant.id, delivery)));
      },
    }),
  ];
}
