/**
 * Cursor-paginated listings over a collection, newest first.
 * @module
 */
import type { ListEnvelope } from '../../models/index.js';
import type { Collection, Stored } from '../core/collection.js';
import { decodeCursor, encodeCursor, filterFingerprint } from './cursor.js';
import type { RoutePlatform } from './routes/types.js';

/** A filter: its value (undefined when absent), the index that serves it, and its test. */
export interface Filter<T> {
  value: string | undefined;
  index?: string;
  test: (record: T) => boolean;
}

/** The `user_id` and `status` filters of a listing of a user's records (quotes, conversions, transactions), over their indexes. */
export function userAndStatus<T extends { userId: string; status: string }>(query: { user_id?: string | undefined; status?: string | undefined }): Record<string, Filter<T>> {
  return {
    user_id: { value: query.user_id, index: 'user_id', test: (r) => r.userId === query.user_id },
    status: { value: query.status, index: 'status', test: (r) => r.status === query.status },
  };
}

/**
 * A page of `collection`. The first present filter that has an index serves the page; the
 * others are checked on each candidate. `base` is the index used when no filter has one.
 */
export function listPage<T extends Stored, O>(
  platform: RoutePlatform,
  collection: Collection<T>,
  resource: string,
  query: { limit?: number | undefined; cursor?: string | undefined },
  filters: Record<string, Filter<T>>,
  out: (record: T) => O,
  base?: { index: [string, string]; test: (record: T) => boolean },
): ListEnvelope<O> {
  const values: Record<string, string | undefined> = {};
  for (const [name, f] of Object.entries(filters)) values[name] = f.value;
  const fingerprint = filterFingerprint(resource, values);
  const before = query.cursor === undefined ? undefined : decodeCursor(platform.cursorSecret, query.cursor, fingerprint);
  let index = base?.index;
  const tests: Array<(r: T) => boolean> = base ? [base.test] : [];
  let indexed = false;
  for (const [, f] of Object.entries(filters)) {
    if (f.value === undefined) continue;
    if (f.index && !indexed) {
      index = [f.index, f.value];
      indexed = true;
    }
    tests.push(f.test);
  }
  const where = tests.length === 0 ? undefined : (r: T): boolean => tests.every((t) => t(r));
  const page = collection.page({ index, before, limit: query.limit ?? 50, where });
  const last = page.items[page.items.length - 1];
  return {
    data: page.items.map(out),
    next_cursor: page.hasMore && last ? encodeCursor(platform.cursorSecret, last.seq, fingerprint) : null,
  };
}
