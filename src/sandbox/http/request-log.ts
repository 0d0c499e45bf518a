/**
 * The app's request log: the last answered requests (bounded ring), kept in process so that
 * `sandbox.inspector` and the server's `/_sandbox/logs` feed read the same entries. An entry
 * holds no key, header, query string or body: of the answer it keeps the id of the object it
 * answered with, so that a log of list answers does not hold their pages.
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
  /** The `id` of the object a successful answer holds (its first field), or `null` (read by {@link objectIdsOf}). */
  bodyId: string | null;
}

type Listener = (entry: RequestLogEntry) => void;

const ID_FIELD = '{"id":"';

/**
 * The `id` of the object an answer body holds, when it is the body's first field (every wire
 * object's), as a string of its own (a substring would keep the whole body alive).
 */
export function idInBody(status: number, body: string | null): string | null {
  if (body === null || status >= 300 || !body.startsWith(ID_FIELD)) return null;
  const end = body.indexOf('"', ID_FIELD.length);
  if (end <= ID_FIELD.length || end - ID_FIELD.length > 80) return null;
  const quoted = body.slice(ID_FIELD.length - 1, end + 1);
  return quoted.includes('\\') ? null : (JSON.parse(quoted) as string);
}

/** Ids a request named in its path, then the id of the object it answered with. */
export function objectIdsOf(entry: RequestLogEntry): string[] {
  const ids = Object.values(entry.params);
  if (entry.bodyId !== null && !ids.includes(entry.bodyId)) ids.push(entry.bodyId);
  return ids;
}

/** Answered requests kept by default (`requestLogSize`). */
export const REQUEST_LOG_SIZE = 1000;

/**
 * A bounded request log with listeners. Closed until someone reads it (the inspector opens it on
 * first use): a closed log records nothing, and the app does not even build the entry (issue 22).
 * Open, recording costs a push; it keeps the latest `capacity` entries (trimmed in batches).
 */
export class RequestLog {
  readonly #entries: RequestLogEntry[] = [];
  readonly #listeners = new Set<Listener>();
  readonly capacity: number;
  #open = false;

  constructor(capacity = REQUEST_LOG_SIZE) {
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

  /** How many entries are held (up to twice `capacity` between two trims). */
  get size(): number {
    return this.#entries.length;
  }

  /** Drops every entry. */
  clear(): void {
    this.#entries.length = 0;
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
