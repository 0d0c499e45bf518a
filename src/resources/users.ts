/**
 * `client.users`: the partner's end customers.
 * @module
 */
import type {
  LimitUpgradeRequest,
  User,
  WalletBalance,
  CreateUserBody,
  LimitUpgradeRequestBody,
  ListUsersParams,
  UpdateUserBody,
} from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { ApiPromise } from '../client/api-promise.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';
import * as A from '../models/answers-shapes.js';


/** End customers of the partner. */
export class Users extends APIResource {
  /** `POST /v1/users`: registers a user (CPF validated; the document is immutable afterwards). */
  create(body: CreateUserBody, options?: RequestOptions): ApiPromise<User> {
    return this._post('/v1/users', { model: A.User }, body, options);
  }

  /** `GET /v1/users`: a page of users, async-iterable over all of them. Filters: `kyc_status`, `cpf`, `external_id`. */
  list(params?: ListUsersParams, options?: RequestOptions): PagePromise<User> {
    return this._list('/v1/users', { model: A.UserList }, params, options);
  }

  /** `GET /v1/users/{id}`. */
  retrieve(id: string, options?: RequestOptions): ApiPromise<User> {
    return this._get(path`/v1/users/${id}`, { model: A.User }, options);
  }

  /** `PATCH /v1/users/{id}`: the document cannot change. */
  update(id: string, body: UpdateUserBody, options?: RequestOptions): ApiPromise<User> {
    return this._patch(path`/v1/users/${id}`, { model: A.User }, body, options);
  }

  /** `DELETE /v1/users/{id}`: a soft delete; the API answers 204 with no body. */
  delete(id: string, options?: RequestOptions): ApiPromise<void> {
    return this._delete(path`/v1/users/${id}`, { model: null }, options);
  }

  /** `GET /v1/users/{id}/wallet`: the user's USDT balance. */
  wallet(id: string, options?: RequestOptions): ApiPromise<WalletBalance> {
    return this._get(path`/v1/users/${id}/wallet`, { model: A.WalletBalance }, options);
  }

  /** `POST /v1/users/{user_id}/limit-upgrade-requests` (answers `limit_upgrade_not_available` for now). */
  requestLimitUpgrade(id: string, body: LimitUpgradeRequestBody = {}, options?: RequestOptions): ApiPromise<LimitUpgradeRequest> {
    return this._post(path`/v1/users/${id}/limit-upgrade-requests`, { model: A.LimitUpgradeRequest }, body, options);
  }
}
