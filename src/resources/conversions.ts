/**
 * `client.conversions`: accepted quotes, followed to their end.
 * @module
 */
import type { Conversion, ListConversionsParams } from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';


/** Conversions. */
export class Conversions extends APIResource {
  /** `GET /v1/conversions`. Filters: `status` (e.g. `standby` sweeps), `user_id`, `transaction_type`. */
  list(params?: ListConversionsParams, options?: RequestOptions): PagePromise<Conversion> {
    return this._list('/v1/conversions', { model: A.ConversionList }, params, options);
  }

  /** `GET /v1/conversions/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<Conversion> {
    return this._get(path`/v1/conversions/${id}`, { model: A.Conversion }, options);
  }

  /** `POST /v1/conversions/{id}/cancel`: only in `awaiting_deposit`. Destructive: not retried on an unknown code. */
  cancel(id: string, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/conversions/${id}/cancel`, { model: A.Conversion, destructive: true }, undefined, options);
  }

  /** `POST /v1/conversions/{id}/liquidate`: only in `standby`, at a rate quoted now. Destructive: not retried on an unknown code. */
  liquidate(id: string, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/conversions/${id}/liquidate`, { model: A.Conversion, destructive: true }, undefined, options);
  }
}
