import { bodyText, toBody, type RawBody } from './body.js';
import { fail } from './errors.js';
import { parseEvent, type WebhookEvent } from './events.js';
import { getHeader, isRequest, type HeadersInput } from './headers.js';
import { NODE_CRYPTO } from './node-crypto.js';
import { verifyBody, type VerifyOptions, type WebhookSecret } from './signature.js';

/** Default name of the signature header. */
export const SIGNATURE_HEADER = 'X-Service-Signature';
/** Default name of the event id header. */
export const EVENT_ID_HEADER = 'X-Service-Event-Id';

/** Options of {@link constructEvent}. */
export interface ConstructEventOptions extends VerifyOptions {
  /** Name of the signature header. Default `X-Service-Signature`. */
  signatureHeader?: string;
  /** Name of the event id header. Default `X-Service-Event-Id`. */
  eventIdHeader?: string;
}

/**
 * Verifies a delivery and parses it into a typed event, reading the body from a web `Request`
 * (`fetch` handlers: Next.js route handlers, Hono's `c.req.raw`, Workers, Deno, Bun).
 */
export function constructEvent(request: Request, secret: WebhookSecret, options?: ConstructEventOptions): Promise<WebhookEvent>;
/**
 * Verifies a delivery and parses it into a typed event.
 *
 * In order: the signature header must hold a `v1=` signature of `{t}.{raw_body}` under one of
 * the secrets, with `t` within the tolerance; the body must be a JSON event envelope; the event
 * id header, when present, must equal the envelope's `id`. Every failure rejects with a
 * `WebhookVerificationError` carrying a `reason`. A repeated delivery verifies again: drop
 * repeats where the event is processed (`createWebhookHandler` in `pix-usdt/webhooks/receiver`).
 *
 * @param rawBody The body exactly as received (string or bytes), never a parsed object. With a
 *   `Request` as `headers`, pass `undefined` to read the body from the `Request`.
 * @param headers A `Headers`, a plain object such as Node's `req.headers` (any case), or a `Request`.
 * @param secret The endpoint secret (`whsec_...`), or several during a rotation.
 */
export function constructEvent(rawBody: RawBody | undefined, headers: HeadersInput, secret: WebhookSecret, options?: ConstructEventOptions): Promise<WebhookEvent>;
export function constructEvent(
  first: unknown,
  second: HeadersInput | WebhookSecret,
  third?: WebhookSecret | ConstructEventOptions,
  fourth?: ConstructEventOptions,
): Promise<WebhookEvent> {
  // Not an async function: its promise machinery costs a few percent of a verification in a
  // browser (bench/webhooks-browser.ts). Every failure still comes back as a rejection.
  try {
    // Bytes rather than text(): text() would replace invalid UTF-8 and so change what was signed.
    if (isRequest(first)) return first.arrayBuffer().then((bytes) => construct(new Uint8Array(bytes), first, second as WebhookSecret, third as ConstructEventOptions | undefined));
    if (first == null && isRequest(second)) return second.arrayBuffer().then((bytes) => construct(new Uint8Array(bytes), second, third as WebhookSecret, fourth));
    return construct(first, second as HeadersInput, third as WebhookSecret, fourth);
  } catch (error) {
    return Promise.reject(error);
  }
}

function construct(raw: unknown, headers: HeadersInput, secret: WebhookSecret, opts: ConstructEventOptions = {}): Promise<WebhookEvent> {
  const body = toBody(raw);
  let event: WebhookEvent | undefined;
  let unreadable: { error: unknown } | undefined;
  // Runs once the signature and the time are good, never before.
  const verified = (): WebhookEvent => {
    if (unreadable) throw unreadable.error;
    // With WebCrypto this runs after the parse below, which set `event` or `unreadable`; with
    // node:crypto it runs at once, before it (the condition lets a browser build drop the parse).
    return accept(NODE_CRYPTO ? (event ??= parseEvent(bodyText(body))) : (event as WebhookEvent), headers, opts);
  };
  const outcome = verifyBody(body, getHeader(headers, opts.signatureHeader ?? SIGNATURE_HEADER), secret, opts, verified);
  // node:crypto verified at once (and `verified` ran): done.
  if (NODE_CRYPTO && event !== undefined) return Promise.resolve(outcome);
  // WebCrypto signs off the main thread (a worker thread on Node): parse the body meanwhile.
  // Nothing parsed is used, nor any parse failure reported, before the signature is good.
  try {
    event = parseEvent(bodyText(body));
  } catch (error) {
    unreadable = { error };
  }
  return outcome as Promise<WebhookEvent>; // the sign's promise, `verified` chained on it
}

// After the signature: the event id header.
function accept(event: WebhookEvent, headers: HeadersInput, opts: ConstructEventOptions): WebhookEvent {
  const headerId = getHeader(headers, opts.eventIdHeader ?? EVENT_ID_HEADER);
  if (headerId !== undefined && headerId !== event.id) fail('event_id_mismatch', 'The event id header does not match the id of the signed event');
  return event;
}
