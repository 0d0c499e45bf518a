/**
 * `client.users`: the partner's end customers.
 * @module
 */
import {
  LimitUpgradeRequest,
  User,
  WalletBalance,
  listOf,
  type CreateUserBody,
  type LimitUpgradeRequestBody,
  type ListUsersParams,
  type UpdateUserBody,
} from '../models/index.js';
import type { PagePromise } from '../client/pagination.js';
import type { RequestOptions } from '../client/types.js';
import { path } from '../internal/path.js';
import { APIResource } from './resource.js';

const UserList = listOf(User);

/** End customers of the partner. */
export class Users extends APIResource {
  /** `POST /v1/users`: registers a user (CPF validated; the document is immutable afterwards). */
  create(body: CreateUserBody, options?: RequestOptions): Promise<User> {
    return this._post('/v1/users', User, body, options);
  }

  /** `GET /v1/users`: a page of users, async-iterable over all of them. Filters: `kyc_status`, `cpf`, `external_id`. */
  list(params?: ListUsersParams, options?: RequestOptions): PagePromise<User> {
    return this._list('/v1/users', UserList, params, options);
  }

  /** `GET /v1/users/{id}`. */
  retrieve(id: string, options?: RequestOptions): Promise<User> {
    return this._get(path`/v1/users/${id}`, User, options);
  }

  /** `PATCH /v1/users/{id}`: the document cannot change. */
  update(id: string, body: UpdateUserBody, options?: RequestOptions): Promise<User> {
    return this._patch(path`/v1/users/${id}`, User, body, options);
  }

  /** `DELETE /v1/users/{id}`: a soft delete; the API answers 204 with no body. */
  delete(id: string, options?: RequestOptions): Promise<void> {
    return this._delete(path`/v1/users/${id}`, null, options);
  }

  /** `GET /v1/users/{id}/wallet`: the user's USDT balance. */
  wallet(id: string, options?: RequestOptions): Promise<WalletBalance> {
    return this._get(path`/v1/users/${id}/wallet`, WalletBalance, options);
  }

  /** `POST /v1/users/{user_id}/limit-upgrade-requests` (answers `limit_upgrade_not_available` for now). */
  requestLimitUpgrade(id: string, body: LimitUpgradeRequestBody = {}, options?: RequestOptions): Promise<LimitUpgradeRequest> {
    return this._post(path`/v1/users/${id}/limit-upgrade-requests`, LimitUpgradeRequest, body, options);
  }
}
