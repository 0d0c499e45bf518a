/**
 * An insertion-ordered collection with secondary indexes. Records get a sequence number at
 * insertion (their sort position: newest first is descending `seq`). Each index maps a key
 * to the ascending array of the `seq`s of its records, so a filtered page costs a binary
 * search plus the page itself, whatever the size of the collection (issue 6).
 * @module
 */

/** A stored record: an id and its sort position. */
export interface Stored {
  id: string;
  seq: number;
}

/** How an index derives its key from a record; `null` leaves the record out of it. */
export type IndexKey<T> = (record: T) => string | null;

/** One page of records, newest first. */
export interface Page<T> {
  items: T[];
  hasMore: boolean;
}

/** Options of {@link Collection.page}. */
export interface PageOptions<T> {
  /** Serve from this index and key; without it, from every record. */
  index?: [name: string, key: string] | undefined;
  /** Only records with `seq` below this (the cursor's position). */
  before?: number | undefined;
  limit: number;
  /** Extra condition checked on each candidate. */
  where?: ((record: T) => boolean) | undefined;
}

function lowerBound(list: number[], value: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Records of one kind in one tenant. */
export class Collection<T extends Stored> {
  readonly #items: T[] = [];
  readonly #byId = new Map<string, T>();
  readonly #keys: Record<string, IndexKey<T>>;
  readonly #indexes = new Map<string, Map<string, number[]>>();
  /**
   * Records inserted, updated or read by id since this set was put here (`null`: not tracked).
   * A server's journal writes these instead of the whole collection: a record is changed in
   * place only after `get` or `insert` handed it out, so the set holds every changed one.
   */
  touched: Set<T> | null = null;

  constructor(indexes: Record<string, IndexKey<T>> = {}) {
    this.#keys = indexes;
    for (const name of Object.keys(indexes)) this.#indexes.set(name, new Map());
  }

  get size(): number {
    return this.#items.length;
  }

  get(id: string): T | undefined {
    const record = this.#byId.get(id);
    if (record !== undefined && this.touched !== null) this.touched.add(record);
    return record;
  }

  /** Every record, oldest first. */
  all(): readonly T[] {
    return this.#items;
  }

  /** Stores a new record and gives it the next sort position. */
  insert(record: T): T {
    record.seq = this.#items.length;
    this.#items.push(record);
    this.touched?.add(record);
    this.#byId.set(record.id, record);
    for (const [name, key] of Object.entries(this.#keys)) {
      const k = key(record);
      if (k !== null) this.#add(name, k, record.seq);
    }
    return record;
  }

  /** Applies `change` to a record and moves it between index keys as needed. */
  update(record: T, change: (record: T) => void): void {
    this.touched?.add(record);
    const before: Array<string | null> = [];
    const names = Object.keys(this.#keys);
    for (const name of names) before.push((this.#keys[name] as IndexKey<T>)(record));
    change(record);
    names.forEach((name, i) => {
      const now = (this.#keys[name] as IndexKey<T>)(record);
      const was = before[i] as string | null;
      if (now === was) return;
      if (was !== null) {
        const list = this.#list(name, was);
        const at = lowerBound(list, record.seq);
        if (list[at] === record.seq) list.splice(at, 1);
      }
      if (now !== null) this.#add(name, now, record.seq);
    });
  }

  /** A page of records, newest first. */
  page(options: PageOptions<T>): Page<T> {
    const out: T[] = [];
    const { where, limit } = options;
    let seqs: number[] | null = null;
    let i: number;
    if (options.index) {
      seqs = this.#indexes.get(options.index[0])?.get(options.index[1]) ?? [];
      i = (options.before === undefined ? seqs.length : lowerBound(seqs, options.before)) - 1;
    } else {
      i = (options.before === undefined ? this.#items.length : Math.min(options.before, this.#items.length)) - 1;
    }
    for (; i >= 0; i--) {
      const record = this.#items[seqs ? (seqs[i] as number) : i] as T;
      if (where && !where(record)) continue;
      if (out.length === limit) return { items: out, hasMore: true };
      out.push(record);
    }
    return { items: out, hasMore: false };
  }

  #list(name: string, key: string): number[] {
    const index = this.#indexes.get(name) as Map<string, number[]>;
    let list = index.get(key);
    if (!list) index.set(key, (list = []));
    return list;
  }

  // Puts `seq` in its place in a key's list. A new key starts with a list of exactly one slot:
  // an empty array that grows by `push` reserves 17 (152 bytes), and most keys of a `user_id`
  // index hold one or two records.
  #add(name: string, key: string, seq: number): void {
    const index = this.#indexes.get(name) as Map<string, number[]>;
    const list = index.get(key);
    if (list === undefined) index.set(key, [seq]);
    else if (list.length === 0 || (list[list.length - 1] as number) < seq) list.push(seq);
    else list.splice(lowerBound(list, seq), 0, seq);
  }
}
