/**
 * Why a webhook was refused. Log it; answer the sender with a 400.
 *
 * - `missing_header`: the signature header is absent or empty.
 * - `malformed_header`: the signature header is not `t=<unix seconds>,v1=<64 hex>[,v1=...]`.
 * - `no_matching_signature`: no `v1=` value matches the body under any of the secrets given
 *   (tampered body, wrong secret, or a body re-serialized by a parser).
 * - `timestamp_too_old` / `timestamp_in_future`: the signed timestamp is outside the tolerance
 *   (300 s by default, in both directions) around `now`.
 * - `parsed_body`: an already-parsed object was given instead of the raw text or bytes.
 * - `missing_body`: no body at all (`undefined`, `null`, or another non-text value).
 * - `invalid_payload`: the signature is good but the body is not a JSON event envelope.
 * - `event_id_mismatch`: the event id header differs from the `id` of the signed envelope.
 */
export type WebhookVerificationReason =
  | 'missing_header'
  | 'malformed_header'
  | 'no_matching_signature'
  | 'timestamp_too_old'
  | 'timestamp_in_future'
  | 'parsed_body'
  | 'missing_body'
  | 'invalid_payload'
  | 'event_id_mismatch';

/**
 * The one error every verification failure throws. Its message never contains a secret.
 *
 * @example
 * ```ts
 * try {
 *   event = await constructEvent(body, headers, secret);
 * } catch (error) {
 *   if (isWebhookVerificationError(error)) return new Response(error.reason, { status: 400 });
 *   throw error;
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  /** The class name, a literal. */
  override readonly name = 'WebhookVerificationError' as const;
  /** A stable, loggable code for the failure. */
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** True for a {@link WebhookVerificationError}, from any copy of this package (checks `name`). */
export function isWebhookVerificationError(error: unknown): error is WebhookVerificationError {
  return (error as { name?: unknown } | null)?.name === 'WebhookVerificationError';
}

/** @internal Throws a {@link WebhookVerificationError}. */
export function fail(reason: WebhookVerificationReason, message: string): never {
  throw new WebhookVerificationError(reason, message);
}
