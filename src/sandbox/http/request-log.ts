/**
 * The app's request log: the last answered requests (bounded ring), kept in process so that
 * `sandbox.inspector` and the server's `/_sandbox/logs` feed read the same entries. An entry
 * holds no key, header, query string or request body; the answer body is kept (the string the
 * caller received) only to tell which objects a request touched, parsed on first read.
 * @module
 */

/** One answered request. */
export interface RequestLogEntry {
  /** The `req_...` id of the answer. */
  requestId: string;
  /** The tenant of the caller's key; `null` when authentication refused it. */
  tenantId: string | null;
  /** HTTP method, upper case. */
  method: string;
  /** URL path, without the query string. */
  path: string;
  /** HTTP status answered (599 for an injected network fault). */
  status: number;
  /** Milliseconds from dispatch to answer, real time. */
  latencyMs: number;
  /** The answer was an idempotent replay. */
  replayed: boolean;
  /** The id of the injected fault plan that answered, or `null`. */
  fault: string | null;
  /** Epoch milliseconds on the caller tenant's clock (real time before authentication). */
  at: number;
  /** The route's path parameters (read by {@link objectIdsOf}). */
  params: Record<string, string>;
  /** The answer body (read by {@link objectIdsOf}; the string the caller received, not a copy). */
  body: string | null;
}

type Listener = (entry: RequestLogEntry) => void;

const ID_IN_BODY = /^\{"id":"([^"]{1,80})"/;
const IDS = new WeakMap<RequestLogEntry, string[]>();

/** Ids a request named in its path, then the id of the object it answered with (worked out on first read). */
export function objectIdsOf(entry: RequestLogEntry): string[] {
  let ids = IDS.get(entry);
  if (ids === undefined) {
    ids = Object.values(entry.params);
    const match = entry.body === null || entry.status >= 300 ? null : ID_IN_BODY.exec(entry.body);
    if (match?.[1] !== undefined && !ids.includes(match[1])) ids.push(match[1]);
    IDS.set(entry, ids);
  }
  return ids;
}

/**
 * A bounded request log with listeners. Closed until someone reads it (the inspector opens it on
 * first use): a closed log records nothing, and the app does not even build the entry (issue 22).
 * Open, recording costs a push: nothing is parsed until read.
 */
export class RequestLog {
  readonly #entries: RequestLogEntry[] = [];
  readonly #listeners = new Set<Listener>();
  readonly capacity: number;
  #open = false;

  constructor(capacity = 1000) {
    this.capacity = capacity;
  }

  /** True once {@link RequestLog.open} was called: the app records answered requests from then on. */
  get recording(): boolean {
    return this.#open;
  }

  /** Starts recording (idempotent). */
  open(): void {
    this.#open = true;
  }

  /** Records an answered request. */
  add(entry: RequestLogEntry): void {
    const entries = this.#entries;
    entries.push(entry);
    if (entries.length > this.capacity * 2) entries.splice(0, entries.length - this.capacity);
    if (this.#listeners.size === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch {
        // A listener (a closed stream) must not fail a request.
      }
    }
  }

  /** The entries kept (at most `capacity`), oldest first. */
  recent(): RequestLogEntry[] {
    return this.#entries.slice(-this.capacity);
  }

  /** Calls `listener` with each new entry; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
