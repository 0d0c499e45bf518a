/**
 * `client.transactions`: settlement legs.
 * @module
 */
import type { Transaction, CreateTransactionBody, ListTransactionsParams } from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';


/** Transactions (settlement legs). */
export class Transactions extends APIResource {
  /** `POST /v1/transactions` `{ quote_id }`: starts in `pending_payment`. */
  create(body: CreateTransactionBody, options?: RequestOptions): ApiPromise<Transaction> {
    return this._post('/v1/transactions', { model: A.Transaction }, body, options);
  }

  /** `GET /v1/transactions`. Filters: `user_id`, `status`. */
  list(params?: ListTransactionsParams, options?: RequestOptions): PagePromise<Transaction> {
    return this._list('/v1/transactions', { model: A.TransactionList }, params, options);
  }

  /** `GET /v1/transactions/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<Transaction> {
    return this._get(path`/v1/transactions/${id}`, { model: A.Transaction }, options);
  }
}
