/**
 * /v1/api-keys: list (never the secret) and rotate (new secret once, old key revoked at once).
 * @module
 */
import { PlainListParams } from '../../../models/index.js';
import { decodeCursor, encodeCursor, filterFingerprint } from '../cursor.js';
import { ApiError } from '../../core/errors.js';
import { apiKeyOut, apiKeyWithSecretOut } from '../../core/wire.js';
import { IdParams, NoBody } from './shared.js';
import { type RouteDef, define, ok } from './types.js';

/** API key routes. */
export const API_KEY_ROUTES: RouteDef[] = [
  define({
    method: 'GET',
    path: '/v1/api-keys',
    capability: 'api_keys:read',
    query: PlainListParams,
    handler({ platform, tenant, query }) {
      const fingerprint = filterFingerprint('api_keys', {});
      let i = (query.cursor === undefined ? tenant.keys.length : decodeCursor(platform.cursorSecret, query.cursor, fingerprint)) - 1;
      const limit = query.limit ?? 50;
      const data = [];
      let next: string | null = null;
      for (; i >= 0; i--) {
        const key = tenant.keys[i];
        if (!key || key.revokedAt !== null) continue;
        if (data.length === limit) {
          next = encodeCursor(platform.cursorSecret, i + 1, fingerprint);
          break;
        }
        data.push(apiKeyOut(key));
      }
      return ok({ data, next_cursor: next });
    },
  }),
  define({
    method: 'POST',
    path: '/v1/api-keys/:id/rotate',
    capability: 'api_keys:write',
    params: IdParams,
    body: NoBody,
    handler({ platform, tenant, at, params }) {
      const old = tenant.keys.find((k) => k.id === params.id);
      // Another tenant's key answers as one that exists nowhere: no answer may tell a tenant what
      // another holds (issue 21; docs/decisions.md, Errors).
      if (!old) throw new ApiError('api_key_not_found', `No API key ${params.id}.`);
      if (old.revokedAt !== null) throw new ApiError('invalid_transaction_state', 'This API key is already revoked.');
      const key = platform.issueKey(tenant, old.name, old.capabilities, at);
      old.revokedAt = at;
      return ok(apiKeyWithSecretOut(key));
    },
  }),
];
