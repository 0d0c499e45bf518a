/**
 * `client.quotes`: priced offers, accepted into conversions.
 * @module
 */
import type {
  Conversion,
  Quote,
  AcceptQuoteBody,
  CreateQuoteBody,
  ListQuotesParams,
} from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';


/** Quotes: valid for a few minutes, consumed by accepting them. */
export class Quotes extends APIResource {
  /** `POST /v1/quotes`: onramp (`source_currency: 'BRL'`) or offramp (`source_currency: 'USDT'`). Rate limited to 60 a minute. */
  create(body: CreateQuoteBody, options?: RequestOptions): ApiPromise<Quote> {
    return this._post('/v1/quotes', { model: A.Quote }, body, options);
  }

  /** `GET /v1/quotes`. Filters: `user_id`, `status`. */
  list(params?: ListQuotesParams, options?: RequestOptions): PagePromise<Quote> {
    return this._list('/v1/quotes', { model: A.QuoteList }, params, options);
  }

  /** `GET /v1/quotes/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<Quote> {
    return this._get(path`/v1/quotes/${id}`, { model: A.Quote }, options);
  }

  /** `POST /v1/quotes/{id}/accept`: consumes the quote and answers the new conversion. */
  accept(id: string, body: AcceptQuoteBody = {}, options?: RequestOptions): ApiPromise<Conversion> {
    return this._post(path`/v1/quotes/${id}/accept`, { model: A.Conversion }, body, options);
  }
}
