/**
 * `client.webhookDeliveries`: one event's delivery to one endpoint, with every attempt.
 * @module
 */
import type { WebhookDelivery } from '../models/index.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';

/** Webhook deliveries. */
export class WebhookDeliveries extends APIResource {
  /** `GET /v1/webhook_deliveries/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<WebhookDelivery> {
    return this._get(path`/v1/webhook_deliveries/${id}`, { model: A.WebhookDelivery }, options);
  }

  /** `POST /v1/webhook_deliveries/{id}/redeliver`: queues a new attempt of the same event. */
  redeliver(id: string, options?: RequestOptions): ApiPromise<WebhookDelivery> {
    return this._post(path`/v1/webhook_deliveries/${id}/redeliver`, { model: A.WebhookDelivery }, undefined, options);
  }
}
