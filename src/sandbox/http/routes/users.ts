/**
 * /v1/users: create, list, retrieve, update, soft delete, wallet, limit-upgrade requests.
 * @module
 */
import {
  CreateUserBody,
  LimitUpgradeRequestBody,
  ListUsersParams,
  UpdateUserBody,
} from '../../../models/index.js';
import { isValidCpf, normalizeCpf } from '../../../pix/documents.js';
import { ApiError } from '../../core/errors.js';
import { userOut, walletOut } from '../../core/wire.js';
import { listPage } from '../list.js';
import { moveQuote } from '../../core/quotes.js';
import { applyTransaction } from '../../core/transactions.js';
import { insertUser, liveUser } from '../../core/users.js';
import type { UserRec } from '../../core/state.js';
import { IdParams } from './shared.js';
import { type RouteDef, define, ok, recordOk, recordReply } from './types.js';
import { USER } from '../../core/versions.js';

// One frozen empty object for every user created without metadata (a PATCH replaces it, never changes it).
const NO_METADATA: Record<string, string> = Object.freeze({});

/** Users routes. */
export const USER_ROUTES: RouteDef[] = [
  define({
    method: 'POST',
    path: '/v1/users',
    capability: 'users:create',
    body: CreateUserBody,
    handler({ platform, tenant, at, body }) {
      const cpf = normalizeCpf(body.document_number);
      if (cpf === null || !isValidCpf(cpf)) {
        throw new ApiError('invalid_cpf', 'The CPF is malformed or its check digits are wrong.', {
          issues: [{ path: 'document_number', message: 'Expected a valid CPF' }],
        });
      }
      if (tenant.cpfIndex.has(cpf)) throw new ApiError('duplicate_cpf', 'A user with this CPF already exists.');
      if (tenant.externalIdIndex.has(body.external_id)) throw new ApiError('duplicate_external_id', 'A user with this external_id already exists.');
      const user: UserRec = {
        id: platform.random.uuid(),
        seq: 0,
        externalId: body.external_id,
        name: body.name,
        email: body.email ?? null,
        dateOfBirth: body.date_of_birth ?? null,
        cpf,
        kycStatus: 'not_started',
        kycApprovedAt: null,
        kycExpiresAt: null,
        metadata: body.metadata ?? NO_METADATA,
        createdAt: at,
        updatedAt: at,
        deletedAt: null,
        submission: null,
        walletId: platform.random.uuid(),
        balance: '0.000000',
        walletUpdatedAt: at,
      };
      insertUser({ world: platform, tenant, at }, user, body.start_kyc !== false);
      return recordReply(platform, 201, USER, user);
    },
  }),
  define({
    method: 'GET',
    path: '/v1/users',
    capability: 'users:read',
    query: ListUsersParams,
    handler({ platform, tenant, query }) {
      const cpf = query.cpf === undefined ? undefined : (normalizeCpf(query.cpf) ?? query.cpf);
      return ok(
        listPage(
          platform,
          tenant.users,
          'users',
          query,
          {
            kyc_status: { value: query.kyc_status, index: 'kyc_status', test: (u) => u.kycStatus === query.kyc_status },
            cpf: { value: cpf, test: (u) => u.cpf === cpf },
            external_id: { value: query.external_id, test: (u) => u.externalId === query.external_id },
          },
          userOut,
          { index: ['live', '1'], test: (u) => u.deletedAt === null },
        ),
      );
    },
  }),
  define({
    method: 'GET',
    path: '/v1/users/:id',
    capability: 'users:read',
    params: IdParams,
    handler: ({ platform, tenant, params }) => recordOk(platform, USER, liveUser(tenant, params.id)),
  }),
  define({
    method: 'PATCH',
    path: '/v1/users/:id',
    capability: 'users:write',
    params: IdParams,
    body: UpdateUserBody,
    precheck(body) {
      const keys = body !== null && typeof body === 'object' ? Object.keys(body) : [];
      const fixed = keys.filter((k) => k === 'document_type' || k === 'document_number');
      if (fixed.length > 0) {
        throw new ApiError('validation_error', 'The request is invalid.', {
          issues: fixed.map((path) => ({ path, message: 'The document is immutable' })),
        });
      }
    },
    handler({ platform, tenant, at, params, body }) {
      const user = liveUser(tenant, params.id);
      if (body.external_id !== undefined && body.external_id !== user.externalId) {
        if (tenant.externalIdIndex.has(body.external_id)) throw new ApiError('duplicate_external_id', 'A user with this external_id already exists.');
        tenant.externalIdIndex.delete(user.externalId);
        tenant.externalIdIndex.set(body.external_id, user.id);
        user.externalId = body.external_id;
      }
      if (body.name !== undefined) user.name = body.name;
      if (body.email !== undefined) user.email = body.email;
      if (body.date_of_birth !== undefined) user.dateOfBirth = body.date_of_birth;
      if (body.metadata !== undefined) user.metadata = body.metadata;
      user.updatedAt = at;
      return recordReply(platform, 200, USER, user);
    },
  }),
  define({
    method: 'DELETE',
    path: '/v1/users/:id',
    capability: 'users:write',
    params: IdParams,
    handler({ platform, tenant, at, params }) {
      const user = liveUser(tenant, params.id);
      tenant.users.update(user, (u) => {
        u.deletedAt = at;
        u.updatedAt = at;
      });
      const scope = { world: platform, tenant, at };
      // Deleting a user cancels its open offers: active quotes and transactions awaiting payment.
      const all = Number.MAX_SAFE_INTEGER;
      for (const q of tenant.quotes.page({ index: ['user_id', user.id], limit: all }).items) if (q.status === 'active') moveQuote(scope, q, 'user_deleted');
      for (const t of tenant.transactions.page({ index: ['user_id', user.id], limit: all }).items) {
        if (t.status === 'pending_payment') applyTransaction(scope, t, 'cancel');
      }
      return { status: 204 };
    },
  }),
  define({
    method: 'GET',
    path: '/v1/users/:id/wallet',
    capability: 'users:read',
    params: IdParams,
    handler: ({ tenant, params }) => ok(walletOut(liveUser(tenant, params.id))),
  }),
  define({
    method: 'POST',
    path: '/v1/users/:id/limit-upgrade-requests',
    capability: 'users:write',
    params: IdParams,
    body: LimitUpgradeRequestBody,
    handler({ tenant, params }) {
      liveUser(tenant, params.id);
      throw new ApiError('limit_upgrade_not_available', 'Limit upgrades are not available yet.');
    },
  }),
];
