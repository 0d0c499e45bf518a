/**
 * An insertion-ordered collection with secondary indexes. Records get a sequence number at
 * insertion (their sort position: newest first is descending `seq`). Each index maps a key
 * to the ascending `seq`s of its records, so a filtered page costs a binary search plus the
 * page itself, whatever the size of the collection (issue 6). A key of one record holds its
 * `seq` alone, not an array: most keys of a `user_id` index have one or two records, and an
 * array costs 56 bytes or more (docs/performance.md, "Memory").
 *
 * Records are held in `seq` order without holes: a gap between two positions (records a
 * retention rule removed, or a `seq` a snapshot says) costs nothing, so restoring a record at
 * any position costs the same as inserting one (issue 35: a document whose one record said
 * `seq: 2000000` used to fill every slot up to it). A record's place is found from its `seq`
 * by arithmetic while there is no gap before or after it, else by a binary search.
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
  // Records in ascending `seq`, without holes (positions never change: cursors hold them, and
  // a removed record's position stays unused).
  #items: T[] = [];
  // The position the next inserted record gets.
  #next = 0;
  readonly #byId = new Map<string, T>();
  readonly #keys: Record<string, IndexKey<T>>;
  readonly #indexes = new Map<string, Map<string, Posting>>();
  // The indexes as a list (insert and update walk it on every write: no entries array each time).
  readonly #list: ReadonlyArray<{ readonly key: IndexKey<T>; readonly postings: Map<string, Posting> }>;
  // Change tracking for a stored tenant (core/persist.ts); `null`: not tracked (in memory, the default).
  #track: { changed: Set<T>; read: Map<T, string>; removed: number[] } | null = null;

  constructor(indexes: Record<string, IndexKey<T>> = {}) {
    this.#keys = indexes;
    for (const name of Object.keys(indexes)) this.#indexes.set(name, new Map());
    this.#list = Object.entries(indexes).map(([name, key]) => ({ key, postings: this.#indexes.get(name) as Map<string, Posting> }));
  }

  /** How many records it holds. */
  get size(): number {
    return this.#items.length;
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
    return this.#items;
  }

  /** The index in `#items` of the record at position `seq`, or -1. */
  #indexOf(seq: number): number {
    const items = this.#items;
    const n = items.length;
    if (n === 0) return -1;
    // No gap before it, or none after it: arithmetic; else a binary search.
    const fromStart = seq - (items[0] as T).seq;
    if (fromStart >= 0 && fromStart < n && (items[fromStart] as T).seq === seq) return fromStart;
    const fromEnd = n - 1 - ((items[n - 1] as T).seq - seq);
    if (fromEnd >= 0 && fromEnd < n && (items[fromEnd] as T).seq === seq) return fromEnd;
    const at = this.#lowerBound(seq);
    return at < n && (items[at] as T).seq === seq ? at : -1;
  }

  /** The index in `#items` of the first record at or after position `seq`. */
  #lowerBound(seq: number): number {
    const items = this.#items;
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((items[mid] as T).seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Stores a new record and gives it the next sort position. */
  insert(record: T): T {
    record.seq = this.#next++;
    return this.#put(record);
  }

  #put(record: T): T {
    this.#items.push(record);
    this.#track?.changed.add(record);
    this.#byId.set(record.id, record);
    for (const { key, postings } of this.#list) {
      const k = key(record);
      if (k !== null) add(postings, k, record.seq);
    }
    return record;
  }

  /**
   * Stores a record read back (a snapshot, a stored tenant's rows) at the position it had, so
   * that positions stay those of its rows and cursors; one that cannot keep it (not after the
   * last position: an old snapshot) gets the next one, as {@link insert} gives. The gap before
   * it costs nothing, however large.
   */
  restore(record: T): T {
    if (!Number.isSafeInteger(record.seq) || record.seq < this.#next) return this.insert(record);
    this.#next = record.seq + 1;
    return this.#put(record);
  }

  /** Applies `change` to a record and moves it between index keys as needed. */
  update(record: T, change: (record: T) => void): void {
    this.#track?.changed.add(record);
    const list = this.#list;
    const before: Array<string | null> = new Array(list.length);
    for (let i = 0; i < list.length; i++) before[i] = (list[i] as (typeof list)[number]).key(record);
    change(record);
    for (let i = 0; i < list.length; i++) {
      const { key, postings } = list[i] as (typeof list)[number];
      const now = key(record);
      const was = before[i] as string | null;
      if (now === was) continue;
      if (was !== null) drop(postings, was, record.seq);
      if (now !== null) add(postings, now, record.seq);
    }
  }

  /**
   * Removes records (a retention rule dropped them): they leave every index, and their positions
   * stay unused. One pass over each index list touched, however many records go.
   */
  remove(records: Iterable<T>): void {
    const gone = new Map<string, Map<string, Set<number>>>();
    const leaving = new Set<T>();
    for (const record of records) {
      const at = this.#indexOf(record.seq);
      if (at < 0 || this.#items[at] !== record || leaving.has(record)) continue;
      leaving.add(record);
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
    if (leaving.size > 0) this.#items = this.#items.filter((r) => !leaving.has(r));
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
      i = (options.before === undefined ? this.#items.length : this.#lowerBound(options.before)) - 1;
    }
    for (; i >= 0; i--) {
      const record = seqs ? this.#items[this.#indexOf(seqs[i] as number)] : this.#items[i];
      if (record === undefined || (where && !where(record))) continue;
      if (out.length === limit) return { items: out, hasMore: true };
      out.push(record);
    }
    return { items: out, hasMore: false };
  }
}

// Puts `seq` in its place under a key of an index (see the module comment).
function add(index: Map<string, Posting>, key: string, seq: number): void {
  const list = index.get(key);
  if (list === undefined) index.set(key, seq);
  else if (typeof list === 'number') index.set(key, list < seq ? [list, seq] : [seq, list]);
  else if ((list[list.length - 1] as number) < seq) list.push(seq);
  else list.splice(lowerBound(list, seq), 0, seq);
}

function drop(index: Map<string, Posting>, key: string, seq: number): void {
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

function seqsOf(posting: Posting | undefined): number[] {
  return posting === undefined ? [] : typeof posting === 'number' ? [posting] : posting;
}
