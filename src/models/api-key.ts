/**
 * What an API key looks like, apart from the schemas: the client's options check keys with it
 * when a client is built, before the models (and zod) are loaded. Depends on nothing.
 * @module
 */

/**
 * What an API key looks like: `sk_test_` (sandbox) or `sk_live_` (production) and 32 letters
 * and digits. The reference shows only the prefixes; the length is ours (docs/decisions.md).
 */
export const API_KEY_FORMAT = /^sk_(test|live)_[A-Za-z0-9]{32}$/;
