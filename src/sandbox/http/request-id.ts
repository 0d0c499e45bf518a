/**
 * A fresh `req_...` id for an answer the app does not give through its pipeline: a host's own
 * refusal (the Node server's, before any tenant is known), the inspector's answers, the request
 * log's feed. Not from the platform's seeded random, so that serving those never changes the ids
 * `/v1` hands out; WebCrypto, so that it runs wherever the sandbox runs.
 * @module
 */

/** `req_` and 32 lower-case hex digits, as the app's ids. */
export function newRequestId(): string {
  return `req_${crypto.randomUUID().replaceAll('-', '')}`;
}
