/**
 * An insertion-ordered collection with secondary indexes. Records get a sequence number at
 * insertion (their sort position: newest first is descending `seq`). Each index maps a key
 * to the ascending `seq`s of its records, so a filtered page costs a binary search plus the
 * page itself, whatever the size of the collection (issue 6). A key of one record holds its
 * `seq` alone, not an array: most keys of a `user_id` index have one or two records, and an
 * array costs 56 bytes or more (docs/performance.md, "Memory").
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

/** The `seq`s of one index key: one alone, or an ascending array. */
type Posting = number | number[];

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
  // Records by position: `#items[seq - #base]`; a removed record leaves a hole until the
  // holes before it are gone too (positions never change: cursors hold them).
  #items: Array<T | undefined> = [];
  #base = 0;
  #holes = 0;
  readonly #byId = new Map<string, T>();
  readonly #keys: Record<string, IndexKey<T>>;
  readonly #indexes = new Map<string, Map<string, Posting>>();
  // Change tracking for a stored tenant (core/persist.ts); `null`: not tracked (in memory, the default).
  #track: { changed: Set<T>; read: Map<T, string>; removed: number[] } | null = null;

  constructor(indexes: Record<string, IndexKey<T>> = {}) {
    this.#keys = indexes;
    for (const name of Object.keys(indexes)) this.#indexes.set(name, new Map());
  }

  /** How many records it holds. */
  get size(): number {
    return this.#items.length - this.#holes;
  }

  get(id: string): T | undefined {
    const record = this.#byId.get(id);
    // A record is changed in place only after `get` or `insert` handed it out: remember how a
    // record read by id looked, so that a change made without `update` is still seen.
    const track = this.#track;
    if (record !== undefined && track !== null && !track.changed.has(record) && !track.read.has(record)) track.read.set(record, JSON.stringify(record));
    return record;
  }

  /** Whether changes are tracked (see {@link takeChanges}). */
  get tracked(): boolean {
    return this.#track !== null;
  }

  /** Starts tracking changes: from now on {@link takeChanges} answers what changed. */
  startTracking(): void {
    this.#track ??= { changed: new Set(), read: new Map(), removed: [] };
  }

  /**
   * The records inserted or changed since tracking started or the last call, each with its JSON
   * when it was already computed (`null` otherwise); tracking starts over. A record read by id
   * and left as it was is not among them.
   */
  takeChanges(): Array<[record: T, json: string | null]> {
    const track = this.#track;
    if (track === null) return [];
    const out: Array<[T, string | null]> = [];
    for (const record of track.changed) out.push([record, null]);
    for (const [record, before] of track.read) {
      if (track.changed.has(record)) continue;
      const now = JSON.stringify(record);
      if (now !== before) out.push([record, now]);
    }
    track.changed.clear();
    track.read.clear();
    return out;
  }

  /** The positions (`seq`) of the records removed since tracking started or the last call; tracking starts over. */
  takeRemoved(): number[] {
    const track = this.#track;
    if (track === null || track.removed.length === 0) return [];
    const out = track.removed;
    track.removed = [];
    return out;
  }

  /** Every record, oldest first. */
  all(): readonly T[] {
    return this.#holes === 0 ? (this.#items as T[]) : (this.#items.filter((r) => r !== undefined) as T[]);
  }

  /** Stores a new record and gives it the next sort position. */
  insert(record: T): T {
    record.seq = this.#base + this.#items.length;
    this.#items.push(record);
    this.#track?.changed.add(record);
    this.#byId.set(record.id, record);
    for (const [name, key] of Object.entries(this.#keys)) {
      const k = key(record);
      if (k !== null) this.#add(name, k, record.seq);
    }
    return record;
  }

  /**
   * Stores a record read back (a snapshot, a stored tenant's rows) at the position it had, so
   * that positions stay those of its rows and cursors; one that cannot keep it (not after the
   * last position: an old snapshot) gets the next one, as {@link insert} gives.
   */
  restore(record: T): T {
    const next = this.#base + this.#items.length;
    if (!Number.isInteger(record.seq) || record.seq <= next) return this.insert(record);
    if (this.#items.length === this.#holes) {
      // Nothing held yet (or holes only): start at its position.
      this.#items = [];
      this.#holes = 0;
      this.#base = record.seq;
    } else {
      for (let seq = next; seq < record.seq; seq++) {
        this.#items.push(undefined);
        this.#holes++;
      }
    }
    return this.insert(record);
  }

  /** Applies `change` to a record and moves it between index keys as needed. */
  update(record: T, change: (record: T) => void): void {
    this.#track?.changed.add(record);
    const before: Array<string | null> = [];
    const names = Object.keys(this.#keys);
    for (const name of names) before.push((this.#keys[name] as IndexKey<T>)(record));
    change(record);
    names.forEach((name, i) => {
      const now = (this.#keys[name] as IndexKey<T>)(record);
      const was = before[i] as string | null;
      if (now === was) return;
      if (was !== null) this.#drop(name, was, record.seq);
      if (now !== null) this.#add(name, now, record.seq);
    });
  }

  /**
   * Removes records (a retention rule dropped them): they leave every index, and their positions
   * stay unused. One pass over each index list touched, however many records go.
   */
  remove(records: Iterable<T>): void {
    const gone = new Map<string, Map<string, Set<number>>>();
    for (const record of records) {
      const at = record.seq - this.#base;
      if (this.#items[at] !== record) continue;
      this.#items[at] = undefined;
      this.#holes++;
      this.#byId.delete(record.id);
      const track = this.#track;
      if (track !== null) {
        track.changed.delete(record);
        track.read.delete(record);
        track.removed.push(record.seq);
      }
      for (const [name, key] of Object.entries(this.#keys)) {
        const k = key(record);
        if (k === null) continue;
        let byKey = gone.get(name);
        if (!byKey) gone.set(name, (byKey = new Map()));
        let seqs = byKey.get(k);
        if (!seqs) byKey.set(k, (seqs = new Set()));
        seqs.add(record.seq);
      }
    }
    for (const [name, byKey] of gone) {
      const index = this.#indexes.get(name) as Map<string, Posting>;
      for (const [k, seqs] of byKey) {
        const kept = seqsOf(index.get(k)).filter((seq) => !seqs.has(seq));
        if (kept.length === 0) index.delete(k);
        else index.set(k, kept.length === 1 ? (kept[0] as number) : kept);
      }
    }
    let lead = 0;
    while (lead < this.#items.length && this.#items[lead] === undefined) lead++;
    if (lead > 0) {
      this.#items = this.#items.slice(lead);
      this.#base += lead;
      this.#holes -= lead;
    }
  }

  /** A page of records, newest first. */
  page(options: PageOptions<T>): Page<T> {
    const out: T[] = [];
    const { where, limit } = options;
    let seqs: number[] | null = null;
    let i: number;
    if (options.index) {
      seqs = seqsOf(this.#indexes.get(options.index[0])?.get(options.index[1]));
      i = (options.before === undefined ? seqs.length : lowerBound(seqs, options.before)) - 1;
    } else {
      i = (options.before === undefined ? this.#items.length : Math.min(options.before - this.#base, this.#items.length)) - 1;
    }
    for (; i >= 0; i--) {
      const record = this.#items[seqs ? (seqs[i] as number) - this.#base : i];
      if (record === undefined || (where && !where(record))) continue;
      if (out.length === limit) return { items: out, hasMore: true };
      out.push(record);
    }
    return { items: out, hasMore: false };
  }

  // Puts `seq` in its place under a key (see the module comment).
  #add(name: string, key: string, seq: number): void {
    const index = this.#indexes.get(name) as Map<string, Posting>;
    const list = index.get(key);
    if (list === undefined) index.set(key, seq);
    else if (typeof list === 'number') index.set(key, list < seq ? [list, seq] : [seq, list]);
    else if ((list[list.length - 1] as number) < seq) list.push(seq);
    else list.splice(lowerBound(list, seq), 0, seq);
  }

  #drop(name: string, key: string, seq: number): void {
    const index = this.#indexes.get(name) as Map<string, Posting>;
    const list = index.get(key);
    if (list === undefined) return;
    if (typeof list === 'number') {
      if (list === seq) index.delete(key);
      return;
    }
    const at = lowerBound(list, seq);
    if (list[at] !== seq) return;
    list.splice(at, 1);
    if (list.length === 1) index.set(key, list[0] as number);
    else if (list.length === 0) index.delete(key);
  }
}

function seqsOf(posting: Posting | undefined): number[] {
  return posting === undefined ? [] : typeof posting === 'number' ? [posting] : posting;
}
