/**
 * The API key of a request and the refusals answered before any tenant does: one rule for the
 * sandbox's `authenticate` stage and for a host that routes keys itself (a Worker in front of
 * stored tenants), so that both answer the same codes and messages.
 * @module
 */
import { keyEnvironment } from '../core/api-keys.js';

/** Why an API key is refused before any tenant answers (each a 401). */
export type ApiKeyRefusalCode = 'authentication_required' | 'invalid_api_key_format' | 'api_key_env_mismatch' | 'authentication_failed';

/** A refused API key: the error envelope's `code` and `message`, and the HTTP status. */
export interface ApiKeyRefusal {
  /** HTTP status: 401. */
  readonly status: 401;
  /** The envelope's code. */
  readonly code: ApiKeyRefusalCode;
  /** The envelope's message (it never contains the key). */
  readonly message: string;
}

function refusal(code: ApiKeyRefusalCode, message: string): ApiKeyRefusal {
  return Object.freeze({ status: 401, code, message });
}

/**
 * The refusals, by what went wrong: no `Authorization: Bearer` header (`required`), a key not of
 * the API key form (`malformed`), a key of the other environment (`sandbox`: the answer of a
 * sandbox to a `sk_live_` key, `production` the reverse), and a well-formed key no tenant holds
 * or one revoked (`unknown`). A host that looks keys up itself answers `unknown` when its lookup
 * finds nothing.
 */
export const API_KEY_REFUSALS = Object.freeze({
  required: refusal('authentication_required', 'Send the header Authorization: Bearer <API key>.'),
  malformed: refusal('invalid_api_key_format', 'The API key is malformed.'),
  unknown: refusal('authentication_failed', 'The API key is unknown or revoked.'),
  otherEnvironment: Object.freeze({
    sandbox: refusal('api_key_env_mismatch', 'This is the sandbox environment; the key belongs to the other one.'),
    production: refusal('api_key_env_mismatch', 'This is the production environment; the key belongs to the other one.'),
  }),
});

// API_KEY_FORMAT as a loop (a key is read on every request; test/sandbox/http/fast-checks.test.ts
// holds the two equal).
const KEY_LENGTH = 'sk_test_'.length + 32;
function isKeyForm(key: string): boolean {
  if (key.length !== KEY_LENGTH || !(key.startsWith('sk_test_') || key.startsWith('sk_live_'))) return false;
  for (let i = 8; i < KEY_LENGTH; i++) {
    const c = key.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return false;
  }
  return true;
}

/**
 * The API key of an `Authorization` header value, read as the sandbox reads it, or why it is
 * refused, in this order: no `Bearer` credentials (`authentication_required`), not of the form
 * `sk_test_` or `sk_live_` and 32 letters or digits (`invalid_api_key_format`), a key of the
 * other environment than `environment` (`api_key_env_mismatch`). A key it answers still has to
 * be found: when no tenant holds it (or it was revoked), answer
 * {@link API_KEY_REFUSALS}`.unknown` (`authentication_failed`).
 *
 * ```ts
 * const key = readApiKey(request.headers.get('authorization'));
 * if (typeof key !== 'string') return Response.json({ code: key.code, message: key.message }, { status: key.status });
 * ```
 */
export function readApiKey(authorization: string | null, environment: 'sandbox' | 'production' = 'sandbox'): string | ApiKeyRefusal {
  if (authorization === null || !authorization.startsWith('Bearer ')) return API_KEY_REFUSALS.required;
  const key = authorization.slice(7);
  if (!isKeyForm(key)) return API_KEY_REFUSALS.malformed;
  if (keyEnvironment(key) !== environment) return API_KEY_REFUSALS.otherEnvironment[environment];
  return key;
}
