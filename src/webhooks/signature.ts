import { toBody, type Body, type RawBody } from './body.js';
import { fail } from './errors.js';
import { bytesToHex, hexMatches, parseSignatureHeader } from './header.js';
import { hmac, type CryptoEngine } from './hmac.js';
import { NODE_CRYPTO } from './node-crypto.js';

/** One signing secret (`whsec_...`), or several during a rotation's grace period. */
export type WebhookSecret = string | readonly string[];

/**
 * The receive time: a `Date`, milliseconds since the epoch (as `Date.now()`), or a function
 * returning either (called once per verification). Defaults to `Date.now()`.
 */
export type NowInput = Date | number | (() => Date | number);

/** The signature header's value as frameworks hand it over (Node types allow an array). */
export type SignatureHeaderValue = string | readonly string[] | null | undefined;

/** Options of {@link signPayload}. */
export interface SignOptions {
  /** The signed time, in unix seconds or as a `Date`. Defaults to now. */
  timestamp?: number | Date;
  /** More secrets to sign with: each adds one `v1=` (what the platform does during a rotation). */
  secrets?: readonly string[];
  /** Force the WebCrypto path (tests, benchmarks). */
  engine?: CryptoEngine;
}

/** Options of {@link verifySignature}. */
export interface VerifyOptions {
  /** How far, in seconds, the signed time may be from `now`, in either direction. Default 300. */
  toleranceSeconds?: number;
  /** The receive time. Defaults to `Date.now()`. */
  now?: NowInput;
  /** Force the WebCrypto path (tests, benchmarks). */
  engine?: CryptoEngine;
}

const DEFAULT_TOLERANCE = 300;

function secretList(secret: WebhookSecret, more?: readonly string[]): string[] {
  const list = typeof secret === 'string' ? [secret] : [...secret];
  if (more) list.push(...more);
  if (!list.length || !list.every((s) => s && typeof s === 'string')) throw new TypeError('The webhook secret must be a non-empty string or list');
  return list;
}

function seconds(now: NowInput | undefined): number {
  const value = typeof now === 'function' ? now() : (now ?? Date.now());
  const ms = typeof value === 'number' ? value : value.getTime();
  if (!Number.isFinite(ms)) throw new TypeError('Invalid now');
  return Math.floor(ms / 1000);
}

/**
 * Signs a body as the platform does, for tests of a receiver: returns the value of the
 * signature header, `t=<unix seconds>,v1=<hex>` with one `v1=` per secret. It shares the HMAC
 * code of {@link verifySignature}.
 *
 * @example
 * ```ts
 * const body = JSON.stringify(event);
 * const header = await signPayload(body, 'whsec_test');
 * await fetch(url, { method: 'POST', body, headers: { 'X-Service-Signature': header, 'X-Service-Event-Id': event.id } });
 * ```
 */
export async function signPayload(rawBody: RawBody, secret: WebhookSecret, options: SignOptions = {}): Promise<string> {
  const body = toBody(rawBody);
  const { timestamp } = options;
  const t = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : (timestamp ?? seconds(undefined));
  if (!Number.isSafeInteger(t) || t < 0) throw new TypeError('Invalid timestamp');
  let header = `t=${t}`;
  for (const s of secretList(secret, options.secrets)) {
    const digest = await hmac(s, `${t}`, body, options.engine);
    header += `,v1=${NODE_CRYPTO && typeof digest === 'string' ? digest : bytesToHex(new Uint8Array(digest as ArrayBuffer))}`;
  }
  return header;
}

function check(digests: readonly (string | ArrayBuffer)[], v1: readonly string[], t: string, tolerance: number, options: VerifyOptions): number {
  // Signature first, then time: a "too old" verdict is only ever given to a genuine signature.
  // Every digest is compared with every v1= (no early exit), each comparison in constant time.
  let matched = false;
  for (const digest of digests) {
    const bytes = NODE_CRYPTO && typeof digest === 'string' ? digest : new Uint8Array(digest as ArrayBuffer);
    for (const candidate of v1) if (hexMatches(bytes, candidate)) matched = true;
  }
  if (!matched) fail('no_matching_signature', 'No signature matches the body with the secret given');
  const signedAt = Number(t);
  const age = seconds(options.now) - signedAt;
  if (age > tolerance) fail('timestamp_too_old', `Signed ${age} s ago, beyond the tolerance of ${tolerance} s`);
  if (-age > tolerance) fail('timestamp_in_future', `Signed ${-age} s ahead, beyond the tolerance of ${tolerance} s`);
  return signedAt;
}

/**
 * @internal {@link verifySignature} on an already-normalized body, then `after(signedAt)` once
 * the signature and the time are good. Synchronous on the node:crypto path; with WebCrypto,
 * every `subtle.sign` has started when this returns, so that `constructEvent` parses the body
 * while they run, and `after` runs in the same reaction as the check (no promise more than the
 * sign's own).
 */
export function verifyBody<R>(
  body: Body,
  header: SignatureHeaderValue,
  secret: WebhookSecret,
  options: VerifyOptions,
  after: (signedAt: number) => R,
): R | Promise<Awaited<R>> {
  const { toleranceSeconds = DEFAULT_TOLERANCE, engine } = options;
  if (!(toleranceSeconds >= 0)) throw new TypeError('Invalid toleranceSeconds');
  const secrets = secretList(secret);
  // An array is what Node's header types allow; join it as Node joins repeated headers.
  const value = typeof header === 'string' ? header : header?.join(', ');
  if (!value) fail('missing_header', 'The webhook signature header is missing');
  const { t, v1 } = parseSignatureHeader(value);
  // Plain loops, one promise per secret and no Promise.all for one: the hot path of a receiver.
  const digests: (string | Promise<ArrayBuffer>)[] = [];
  for (const s of secrets) digests.push(hmac(s, t, body, engine));
  const first = digests[0] as string | Promise<ArrayBuffer>;
  if (NODE_CRYPTO && typeof first === 'string') return after(check(digests as string[], v1, t, toleranceSeconds, options));
  if (digests.length === 1) return (first as Promise<ArrayBuffer>).then((digest) => after(check([digest], v1, t, toleranceSeconds, options))) as Promise<Awaited<R>>;
  return Promise.all(digests).then((list) => after(check(list, v1, t, toleranceSeconds, options))) as Promise<Awaited<R>>;
}

const signedAt = (t: number): number => t;

/**
 * Verifies a signature header against the raw body. Resolves when one `v1=` value is the
 * HMAC-SHA256 of `{t}.{raw_body}` under one of the secrets (constant-time comparison) and `t`
 * is within `toleranceSeconds` of `now` in either direction; otherwise rejects with a
 * `WebhookVerificationError` whose `reason` says why.
 *
 * @param rawBody The body exactly as received (string or bytes), never a parsed object.
 * @param header The value of the `X-Service-Signature` header (`req.headers['x-service-signature']`).
 * @param secret The endpoint secret, or a list of secrets (any may match).
 * @returns The signed timestamp, in unix seconds.
 */
export async function verifySignature(rawBody: RawBody, header: SignatureHeaderValue, secret: WebhookSecret, options: VerifyOptions = {}): Promise<number> {
  return verifyBody(toBody(rawBody), header, secret, options, signedAt);
}
