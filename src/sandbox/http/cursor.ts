/**
 * Opaque, tamper-evident cursors: the sort position of the last item returned and a
 * fingerprint of the filters, signed with a keyed hash under a per-sandbox secret. A cursor
 * that was altered, or that is used with other filters, answers 400 invalid_cursor.
 * @module
 */
import { ApiError } from '../core/errors.js';
import { hash53 } from '../core/random.js';

function sign(secret: string, payload: string): string {
  const text = `${secret}|${payload}`;
  return hash53(text, 21).toString(36) + '.' + hash53(text, 22).toString(36);
}

/** The fingerprint of a listing's filters (everything but `limit` and `cursor`). */
export function filterFingerprint(resource: string, filters: Record<string, unknown>): string {
  const parts = Object.keys(filters)
    .filter((k) => k !== 'limit' && k !== 'cursor' && filters[k] !== undefined)
    .sort()
    .map((k) => `${k}=${String(filters[k])}`);
  return hash53(`${resource}?${parts.join('&')}`, 3).toString(36);
}

function toBase64Url(text: string): string {
  return btoa(text).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Encodes a cursor pointing below `seq` (a collection's sequence number, or an id: {@link decodeIdCursor}). */
export function encodeCursor(secret: string, seq: number | string, fingerprint: string): string {
  const payload = `${seq}.${fingerprint}`;
  return toBase64Url(`${payload}.${sign(secret, payload)}`);
}

/** Decodes a cursor into the position to continue below; throws invalid_cursor. */
export function decodeCursor(secret: string, cursor: string, fingerprint: string): number {
  return Number(decodePosition(secret, cursor, fingerprint, /^\d{1,15}$/));
}

/**
 * Decodes a cursor that points below the item with an id: for logs that are not collections (the
 * event log, trimmed from its head), where a position would move but an id does not. Throws
 * invalid_cursor.
 */
export function decodeIdCursor(secret: string, cursor: string, fingerprint: string): string {
  return decodePosition(secret, cursor, fingerprint, /^[0-9a-f-]{36}$/);
}

function decodePosition(secret: string, cursor: string, fingerprint: string, position: RegExp): string {
  const bad = (): ApiError => new ApiError('invalid_cursor', 'The cursor is malformed, was altered, or belongs to other filters.');
  if (cursor.length > 200 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw bad();
  let text: string;
  try {
    text = atob(cursor.replaceAll('-', '+').replaceAll('_', '/'));
  } catch {
    throw bad();
  }
  const parts = text.split('.');
  if (parts.length !== 4) throw bad();
  const [seqText, fp, s1, s2] = parts as [string, string, string, string];
  if (!position.test(seqText) || fp !== fingerprint) throw bad();
  if (`${s1}.${s2}` !== sign(secret, `${seqText}.${fp}`)) throw bad();
  return seqText;
}
