/**
 * API keys as the sandbox issues and reads them: the form is the models' ({@link API_KEY_FORMAT},
 * which the client checks too); the prefix says the environment, `sk_test_` the sandbox and
 * `sk_live_` production.
 * @module
 */
import { API_KEY_FORMAT } from '../../models/api-key.js';

export { API_KEY_FORMAT };

/** The environment of a sandbox, and of its keys. */
export type KeyEnvironment = 'sandbox' | 'production';

/** The prefix of a key of an environment. */
export function keyPrefix(environment: KeyEnvironment): 'sk_test_' | 'sk_live_' {
  return environment === 'sandbox' ? 'sk_test_' : 'sk_live_';
}

/** The environment a well-formed key belongs to, by its prefix. */
export function keyEnvironment(secret: string): KeyEnvironment {
  return secret.startsWith('sk_test_') ? 'sandbox' : 'production';
}
