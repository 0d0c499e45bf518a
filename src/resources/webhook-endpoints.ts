/**
 * `client.webhookEndpoints`: where events are delivered.
 * @module
 */
import type {
  DeletedWebhookEndpoint,
  RotatedWebhookSecret,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
  CreateWebhookEndpointBody,
  ListWebhookDeliveriesParams,
  PlainListParams,
  RotateWebhookSecretBody,
  UpdateWebhookEndpointBody,
} from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';

/** Webhook endpoints. */
export class WebhookEndpoints extends APIResource {
  /** `POST /v1/webhook_endpoints`: the answer carries the signing `secret`, shown this once. */
  create(body: CreateWebhookEndpointBody, options?: RequestOptions): ApiPromise<WebhookEndpointWithSecret> {
    return this._post('/v1/webhook_endpoints', { model: A.WebhookEndpointWithSecret }, body, options);
  }

  /** `GET /v1/webhook_endpoints`. */
  list(params?: PlainListParams, options?: RequestOptions): PagePromise<WebhookEndpoint> {
    return this._list('/v1/webhook_endpoints', { model: A.WebhookEndpointList }, params, options);
  }

  /** `GET /v1/webhook_endpoints/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<WebhookEndpoint> {
    return this._get(path`/v1/webhook_endpoints/${id}`, { model: A.WebhookEndpoint }, options);
  }

  /** `PATCH /v1/webhook_endpoints/{id}`: `url`, `event_types`, `description`, `status`. */
  update(id: string, body: UpdateWebhookEndpointBody, options?: RequestOptions): ApiPromise<WebhookEndpoint> {
    return this._patch(path`/v1/webhook_endpoints/${id}`, { model: A.WebhookEndpoint }, body, options);
  }

  /** `DELETE /v1/webhook_endpoints/{id}`: answers `{ id, deleted: true }`. */
  delete(id: string, options?: RequestOptions): ApiPromise<DeletedWebhookEndpoint> {
    return this._delete(path`/v1/webhook_endpoints/${id}`, { model: A.DeletedWebhookEndpoint }, options);
  }

  /**
   * `POST /v1/webhook_endpoints/{id}/rotate_secret`: a new secret; the old one keeps signing for
   * `grace_period_seconds` (default 24 hours). Destructive: not retried on an unknown code.
   */
  rotateSecret(id: string, body: RotateWebhookSecretBody = {}, options?: RequestOptions): ApiPromise<RotatedWebhookSecret> {
    return this._post(path`/v1/webhook_endpoints/${id}/rotate_secret`, { model: A.RotatedWebhookSecret, destructive: true }, body, options);
  }

  /** `GET /v1/webhook_endpoints/{id}/deliveries`. Filters: `status`, `event_id`. */
  listDeliveries(id: string, params?: ListWebhookDeliveriesParams, options?: RequestOptions): PagePromise<WebhookDelivery> {
    return this._list(path`/v1/webhook_endpoints/${id}/deliveries`, { model: A.WebhookDeliveryList }, params, options);
  }
}
