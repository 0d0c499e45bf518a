/**
 * `client.apiKeys`: list the tenant's keys, rotate one.
 * @module
 */
import type { ApiKey, ApiKeyWithSecret, PlainListParams } from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';


/** API keys of the tenant. */
export class ApiKeys extends APIResource {
  /** `GET /v1/api-keys`: the keys, without their secrets. */
  list(params?: PlainListParams, options?: RequestOptions): PagePromise<ApiKey> {
    return this._list('/v1/api-keys', { model: A.ApiKeyList }, params, options);
  }

  /**
   * `POST /v1/api-keys/{id}/rotate`: issues a new key (same name and capabilities), returns its
   * secret this once, and revokes the old key immediately. Destructive: not retried on an unknown code.
   */
  rotate(id: string, options?: RequestOptions): ApiPromise<ApiKeyWithSecret> {
    return this._post(path`/v1/api-keys/${id}/rotate`, { model: A.ApiKeyWithSecret, destructive: true }, undefined, options);
  }
}
