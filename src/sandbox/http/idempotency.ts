/**
 * The idempotency stage: a mutation with an `Idempotency-Key` runs once per key and tenant; a
 * retry with the same request replays the stored answer, a different request under the same
 * key is refused, and records expire after `idempotencyTtlMs` (core/logs.ts keeps them).
 * A replay is the stored answer as it was, `x-request-id` included (the first request's id, the
 * one an error body's `request_id` carries), plus `idempotent-replayed: true`.
 * @module
 */
import { ApiError } from '../core/errors.js';
import { flat, hash53Of } from '../core/random.js';
import { type CompactBody, type IdempotencyRec, bodyText } from '../core/state.js';
import { replayOf } from '../core/tenant-schema.js';
import { Version } from '../core/versions.js';
import { type Answer, type AuthenticatedCall, type Check, type RoutedCall, type Stage, errorAnswer, isMutation } from './call.js';

const IN_PROGRESS_MS = 60_000;

/**
 * The `expire_idempotency` stage: drops the caller tenant's records older than the TTL, right
 * after authentication, whatever the request then meets (an unknown route, a refusal).
 */
export const expireIdempotency: Check<AuthenticatedCall> = (call) => {
  call.tenant.idempotency.expire(call.at - call.platform.settings.idempotencyTtlMs);
  return call;
};

interface Note {
  body: string | null;
  compact: CompactBody;
}

// Answers whose body is a record's wire form, with the version that rebuilds it (noted by `execute`).
const COMPACT = new WeakMap<Answer, Note>();
// The answer noted last, in two slots rather than the map: a handler that answers at once has its
// answer stored (`stored`) right after it is noted, so a new record's answer costs no `WeakMap`
// entry (about 0.8 us of a new user's in the profile). A note not read yet goes to the map when
// the next one comes (an answer stored later: an async handler, a mutation without a key).
let lastAnswer: Answer | null = null;
let lastNote: Note | null = null;

/** Notes that `answer`'s body is `compact`'s text: stored, the answer keeps the version, not the text. */
export function noteCompact(answer: Answer, compact: CompactBody): void {
  if (lastAnswer !== null) COMPACT.set(lastAnswer, lastNote as Note);
  lastAnswer = answer;
  lastNote = { body: answer.body, compact };
}

// The note of an answer (read once: the slots are emptied when it is theirs).
function noteOf(answer: Answer): Note | undefined {
  if (answer !== lastAnswer) return COMPACT.get(answer);
  const note = lastNote as Note;
  lastAnswer = lastNote = null;
  return note;
}

/**
 * A replay: the stored answer written from the allow-list (core/tenant-schema.ts `replayOf`: a
 * status from 200 to 599, allow-listed headers, its `x-request-id`), plus `idempotent-replayed:
 * true`. A record that cannot be replayed (it reached storage some other way) is a 500.
 */
function replay(rec: IdempotencyRec, text: string | null, requestId: string): Answer {
  // The four fields replayOf reads, not a spread of the whole record.
  const answer = replayOf({ status: rec.status, body: text, requestId: rec.requestId, headers: rec.headers }, requestId);
  if (answer === null) throw new ApiError('internal_error', 'The stored answer of this Idempotency-Key cannot be replayed (its record is damaged); nothing was run.');
  return answer;
}

// The usual answer headers are not stored (null); others are, without x-request-id (kept apart).
function storedHeaders(headers: Record<string, string>): Record<string, string> | null {
  let usual = true;
  let count = 0;
  for (const name in headers) {
    count++;
    if (name !== 'content-type' || headers[name] !== 'application/json') usual = false;
  }
  if (usual && count === 1) return null;
  const { 'x-request-id': _id, ...rest } = headers;
  return rest;
}

/** The stage: not an async function, so that a GET (no key to read) or a replay is answered at once. */
export const idempotency: Stage<RoutedCall> = (call, next) => {
  if (!isMutation(call.method)) return next();
  const key = call.headers.get('idempotency-key');
  if (key === null || key === '') {
    if (call.route.idempotency === 'required') {
      throw new ApiError('idempotency_key_required', 'Send an Idempotency-Key header with every POST, PATCH and DELETE.');
    }
    return next();
  }
  if (key.length > 255) {
    throw new ApiError('validation_error', 'The request is invalid.', { issues: [{ path: 'Idempotency-Key', message: 'At most 255 characters' }] });
  }
  const { tenant } = call;
  // The hash of `${method} ${path}${search}\n${body}`, read piece by piece.
  const fingerprint = hash53Of([call.method, ' ', call.path, call.search, '\n', call.bodyText], 1);
  const existing = tenant.idempotency.get(key);
  if (existing) {
    const running = existing.status === 0;
    if (running && call.at - existing.startedAt < IN_PROGRESS_MS) {
      throw new ApiError('idempotency_key_in_progress', 'A request with this Idempotency-Key is still running.');
    }
    if (!running) {
      if (existing.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request.');
      }
      // A record's version: its JSON is the platform's kept one when it is the last asked of its kind.
      const text = existing.body instanceof Version ? call.platform.textOf(existing.body) : bodyText(existing.body);
      return replay(existing, text, call.requestId);
    }
  }
  // The key is kept for 24 hours: one flat copy, not the caller's string (which may be a tree of pieces).
  const rec: IdempotencyRec = { key: flat(key), fingerprint, startedAt: call.at, status: 0, body: null, requestId: call.requestId, headers: null };
  tenant.idempotency.set(rec.key, rec);
  let answer: Answer | Promise<Answer>;
  try {
    answer = next();
  } catch (error) {
    return stored(call, rec, errorAnswer(error, call.requestId));
  }
  if (!(answer instanceof Promise)) return stored(call, rec, answer);
  return answer.then(
    (a) => stored(call, rec, a),
    (error: unknown) => stored(call, rec, errorAnswer(error, call.requestId)),
  );
};

// The answer of a key's first request, kept in its record (or the record dropped, for an answer a retry must be able to change).
function stored(call: RoutedCall, rec: IdempotencyRec, answer: Answer): Answer {
  const { tenant } = call;
  if (answer.status >= 500 || answer.status === 429) {
    // Not stored: a retry with the same key must be able to succeed.
    if (tenant.idempotency.get(rec.key) === rec) tenant.idempotency.delete(rec.key);
  } else {
    rec.status = answer.status;
    // The version when the body is still the one it was noted with (a middleware may have changed it).
    const noted = noteOf(answer);
    rec.body = noted !== undefined && noted.body === answer.body ? noted.compact : answer.body;
    // A replay answers as the first request did: its body's `request_id` and its `x-request-id` agree.
    rec.headers = storedHeaders(answer.headers);
  }
  return answer;
}
