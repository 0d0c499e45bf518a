import { fail } from './errors.js';

/** The body exactly as received: text, or bytes (a Node `Buffer` is a `Uint8Array`). */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** @internal The body as the HMAC functions take it. */
export type Body = string | Uint8Array;

const HINT =
  "A JSON body parser ran first, but the signature covers the exact bytes sent: pass the raw body (Express: express.raw({ type: 'application/json' }); Fastify: parseAs: 'buffer'; fetch: await request.text())";

/**
 * @internal Accepts text or bytes; refuses, with a reason a receiver can act on, what cannot
 * be the raw body (the most common receiver bug is a parsed object here).
 */
export function toBody(raw: unknown): Body {
  if (typeof raw === 'string' || raw instanceof Uint8Array) return raw;
  // toString rather than instanceof: an ArrayBuffer from another realm (a vm, an iframe) counts too.
  if (Object.prototype.toString.call(raw) === '[object ArrayBuffer]') return new Uint8Array(raw as ArrayBuffer);
  if (ArrayBuffer.isView(raw)) return new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  const parsed = typeof raw === 'object' && raw !== null;
  return fail(parsed ? 'parsed_body' : 'missing_body', `Expected the raw body (string or bytes), got ${parsed ? 'a parsed object' : raw === null ? 'null' : typeof raw}. ${HINT}`);
}

const decoder = /* @__PURE__ */ new TextDecoder('utf-8', { fatal: true });

/** @internal The body as text, for JSON parsing; invalid UTF-8 is an `invalid_payload`. */
export function bodyText(body: Body): string {
  if (typeof body === 'string') return body;
  try {
    return decoder.decode(body);
  } catch {
    return fail('invalid_payload', 'The body is not valid UTF-8');
  }
}
