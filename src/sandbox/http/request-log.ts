/**
 * The request log: one entry per answered request, in process, the last `requestLogSize`
 * (1,000 by default) kept. Whoever answers writes it: the app, for every request it dispatches
 * (http/app.ts), and a host in front of the app for what it refuses itself before any tenant is
 * known (the Node server's malformed requests, preflights, what Node's parser refuses). Everything
 * that shows requests reads it: `sandbox.inspector`, a server's stderr line, its feed
 * `/_sandbox/logs` (served by {@link RequestLog.serveFeed}, so that a Worker can serve it too) and
 * `logs tail` over that feed.
 *
 * An entry holds no key, header, query string or body: of the answer it keeps the id of the object
 * it answered with, so that a log of list answers does not hold their pages. `at` is the real time
 * of the answer, for every entry (docs/decisions.md, "One request log"): a refusal before
 * authentication has no tenant clock to read, and real time is what an operator lines up with
 * their own logs.
 *
 * Closed until someone reads it (an inspector, a subscriber, a feed): a closed log records
 * nothing, and the app does not even build the entry (issue 22).
 * @module
 */
import { envelopeAnswer } from './call.js';
import { type EventSink, eventStream } from './event-stream.js';
import { newRequestId } from './request-id.js';

/** One answered request (the inspector's `InspectedRequest`, a feed event, a `logs tail --json` line). */
export interface RequestLogEntry {
  /** Real time of the answer, ISO 8601 (not a tenant's clock). */
  at: string;
  /** The `req_...` id of the answer (its `x-request-id`; a replay's is the first request's). */
  request_id: string;
  /** The tenant of the caller's live API key; `null` when no live key authenticated it (only the operator sees those). */
  tenant_id: string | null;
  /** HTTP method as sent, upper case. */
  method: string;
  /** URL path, without the query string (at most 200 characters). */
  path: string;
  /** HTTP status answered (599 for an injected network fault). */
  status: number;
  /** Real milliseconds from the request's arrival to its answer, to 0.1 ms. */
  latency_ms: number;
  /** The answer was an idempotent replay (`Idempotent-Replayed: true`). */
  replayed: boolean;
  /** The id of the injected fault plan that answered, or `null`. */
  fault: string | null;
  /** Ids the request named in its path, then the id of the object it answered with. */
  object_ids: string[];
}

/** What an answerer hands {@link RequestLog.add}: the entry but its time and latency, and when the request arrived. */
export type AnsweredRequest = Omit<RequestLogEntry, 'at' | 'latency_ms'> & {
  /** `performance.now()` when the request arrived. */
  arrived: number;
};

/**
 * What a host knows of a request that the app does not: when it arrived (before its body was
 * read) and the method as sent (the Node server asks the app a HEAD as a GET).
 */
export interface Arrival {
  /** `performance.now()` at arrival. */
  at: number;
  /** The method as sent, upper case. */
  method: string;
  /**
   * The host writes `x-request-id` itself (the Node server: sandbox/http/call.ts `ApartAnswer`):
   * the answer's headers are then the app's own, not a copy with the request id put first.
   */
  requestIdApart?: boolean;
}

/** Who reads the feed: every entry (the operator), or one tenant's, as long as its key stays live. */
export type LogReader = { all: true } | { all: false; tenantId: string; live: () => boolean };

/** What decides who reads the feed: the operator's key and the sandbox's own key lookup. */
export interface FeedAccess {
  /** The operator's key: `Authorization: Bearer <controlKey>` reads every entry. */
  controlKey: string;
  /** The tenant of the live API key an `Authorization` header carries, and whether it is still live (`SandboxImpl.keyOwner`). */
  keyOwner(authorization: string | null): { tenantId: string; live: () => boolean } | null;
}

type Listener = (entry: RequestLogEntry) => void;

/**
 * A listener of an entry's fields as arguments ({@link RequestLog.subscribeFields}): the
 * entry's time, request id, tenant, method, path, status, latency, replay flag, fault and
 * object ids, in the order of {@link RequestLogEntry}.
 */
export type FieldListener = (
  at: string,
  requestId: string,
  tenantId: string | null,
  method: string,
  path: string,
  status: number,
  latencyMs: number,
  replayed: boolean,
  fault: string | null,
  objectIds: readonly string[],
) => void;

/** Answered requests kept by default (`requestLogSize`, `serve --request-log-size`). */
export const REQUEST_LOG_SIZE = 1000;

/** The path a server serves the feed under: outside `/v1`, so it cannot collide with the API. */
export const LOG_FEED_PATH = '/_sandbox/logs';

const MAX_PATH = 200;
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

// Whether a body opens with `{"id":"<id>"` (what idInBody would read: the same id).
function opensWith(body: string, id: string): boolean {
  return body.charCodeAt(ID_FIELD.length + id.length) === 34 && body.startsWith(ID_FIELD) && body.startsWith(id, ID_FIELD.length) && !id.includes('\\') && !id.includes('"');
}

// One literal, field by field, in the order of the feed's JSON.
function entryOf(at: string, requestId: string, tenantId: string | null, method: string, path: string, status: number, latency: number, replayed: boolean, fault: string | null, objectIds: string[]): RequestLogEntry {
  return { at, request_id: requestId, tenant_id: tenantId, method, path, status, latency_ms: latency, replayed, fault, object_ids: objectIds };
}

/** The printable path of a raw request target: no query string (it may carry anything), no control characters. */
export function logPath(target: string | undefined): string {
  const path = (target ?? '').split('?')[0] ?? '';
  // eslint-disable-next-line no-control-regex
  return path.replace(/[\u0000-\u001f\u007f\s]/g, '?').slice(0, MAX_PATH);
}

// `toISOString` costs about as much as the rest of an entry: one string a millisecond. The
// millisecond is read off the monotonic clock the latency reads anyway (`performance.now()`),
// anchored to the wall clock again once a second: a `Date.now()` each request was a tenth of a
// microsecond of a GET in `serve` (docs/performance.md), and an entry's time stays within a second's
// drift of the wall clock, which a clock step moves with it at the next anchoring.
let isoMs = Number.NaN;
let isoText = '';
let wallOffset = 0;
let anchorUntil = Number.NEGATIVE_INFINITY;
function isoAt(now: number): string {
  if (now >= anchorUntil) {
    wallOffset = Date.now() - now;
    anchorUntil = now + 1000;
  }
  const ms = Math.floor(now + wallOffset);
  if (ms !== isoMs) {
    isoMs = ms;
    isoText = new Date(ms).toISOString();
  }
  return isoText;
}

function sees(reader: LogReader, entry: RequestLogEntry): boolean {
  return reader.all || entry.tenant_id === reader.tenantId;
}

/** Compares a secret without an early exit on the first differing character. */
function sameSecret(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < given.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

const FEED_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-store', 'x-accel-buffering': 'no' };

function refusal(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  const requestId = newRequestId();
  const answer = envelopeAnswer({ status, code, message, headers: { ...headers, 'x-request-id': requestId } }, requestId);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}

/** Adds `listener` to `set`, handing `rebuild` the set as an array (the loop of every entry reads that); returns the removal. */
function listen<T>(set: Set<T>, listener: T, rebuild: (all: T[]) => void): () => boolean {
  set.add(listener);
  rebuild([...set]);
  return () => {
    const had = set.delete(listener);
    rebuild([...set]);
    return had;
  };
}

// An entry's `object_ids` kept: none, one id (most requests), or the list.
type KeptIds = string | string[] | null;

/**
 * A bounded request log with listeners and feeds. Open, recording costs writing one slot of a
 * ring of the latest `capacity` entries, kept as columns: a kept entry is no object of its own
 * (an entry object a request, kept for a thousand requests or more, was copied and promoted by
 * the young generation's collections: 1.2 us a GET in `serve`, docs/performance.md). An entry
 * object is built for the listeners, and for a reader of {@link RequestLog.recent}.
 */
export class RequestLog {
  #count = 0;
  readonly #slots: number;
  // The columns grow to `#slots` as entries come (a sandbox whose log never opens holds none);
  // the typed ones are made with the first entry.
  readonly #at: string[] = [];
  readonly #requestIds: string[] = [];
  readonly #tenantIds: (string | null)[] = [];
  readonly #methods: string[] = [];
  readonly #paths: string[] = [];
  #statuses = new Uint16Array(0);
  #latencies = new Float64Array(0);
  #replayed = new Uint8Array(0);
  readonly #faults: (string | null)[] = [];
  readonly #objectIds: KeptIds[] = [];
  readonly #listeners = new Set<Listener>();
  /** {@link RequestLog.#listeners} as an array, for the loop of every entry (rebuilt when they change). */
  #listening: Listener[] = [];
  readonly #fieldListeners = new Set<FieldListener>();
  /** {@link RequestLog.#fieldListeners} as an array (rebuilt when they change). */
  #fieldListening: FieldListener[] = [];
  #lastBody: string | null = null;
  #lastId: string | null = null;
  readonly #feeds = new Set<EventSink>();
  readonly capacity: number;
  #open = false;

  constructor(capacity = REQUEST_LOG_SIZE) {
    this.capacity = capacity;
    this.#slots = Math.max(0, Math.floor(capacity));
  }

  /** True once someone reads the log: answerers record from then on (and build no entry before). */
  get recording(): boolean {
    return this.#open;
  }

  /** Starts recording (idempotent). */
  open(): void {
    this.#open = true;
  }

  /** Records an answered request: its time is now, its latency runs from `arrived` to now. */
  add(answered: AnsweredRequest): void {
    const a = answered;
    this.record(a.request_id, a.tenant_id, a.method, a.path, a.status, a.arrived, a.replayed, a.fault, a.object_ids);
  }

  /** {@link add} with the fields as arguments (the app's path: no object to hand them in). */
  record(requestId: string, tenantId: string | null, method: string, path: string, status: number, arrived: number, replayed: boolean, fault: string | null, objectIds: string[]): void {
    const now = performance.now();
    const at = isoAt(now);
    const kept = path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path;
    const latency = Math.round((now - arrived) * 10) / 10;
    const slots = this.#slots;
    if (slots > 0) {
      if (this.#statuses.length === 0) {
        this.#statuses = new Uint16Array(slots);
        this.#latencies = new Float64Array(slots);
        this.#replayed = new Uint8Array(slots);
      }
      const i = this.#count % slots;
      this.#at[i] = at;
      this.#requestIds[i] = requestId;
      this.#tenantIds[i] = tenantId;
      this.#methods[i] = method;
      this.#paths[i] = kept;
      this.#statuses[i] = status;
      this.#latencies[i] = latency;
      this.#replayed[i] = replayed ? 1 : 0;
      this.#faults[i] = fault;
      this.#objectIds[i] = objectIds.length === 0 ? null : objectIds.length === 1 ? (objectIds[0] as string) : objectIds;
    }
    this.#count++;
    const fields = this.#fieldListening;
    for (let i = 0; i < fields.length; i++) {
      try {
        (fields[i] as FieldListener)(at, requestId, tenantId, method, kept, status, latency, replayed, fault, objectIds);
      } catch {
        // As for an entry's listener below.
      }
    }
    const listeners = this.#listening;
    if (listeners.length === 0) return;
    const entry = entryOf(at, requestId, tenantId, method, kept, status, latency, replayed, fault, objectIds);
    for (let i = 0; i < listeners.length; i++) {
      try {
        (listeners[i] as Listener)(entry);
      } catch {
        // A listener (a closed stream) must not fail a request.
      }
    }
  }

  /**
   * {@link idInBody}, remembered for the last body: a replay and a read of a record that did not
   * change answer the very same string again (the kept JSON of its version), and its id is not
   * read again. `named`: an id the body may open with (a read's path id), checked in place
   * instead of parsing the body's. Holds that one body until the next differs.
   */
  idOf(status: number, body: string | null, named?: string): string | null {
    if (body === null || status >= 300) return null;
    if (body !== this.#lastBody) {
      this.#lastBody = body;
      this.#lastId = named !== undefined && opensWith(body, named) ? named : idInBody(status, body);
    }
    return this.#lastId;
  }

  /** How many entries are held (at most `capacity`). */
  get size(): number {
    return Math.min(this.#count, this.#slots);
  }

  /** Drops every entry. */
  clear(): void {
    this.#count = 0;
    for (const column of [this.#at, this.#requestIds, this.#tenantIds, this.#methods, this.#paths, this.#faults, this.#objectIds]) column.length = 0;
  }

  /** The entries kept (at most `capacity`), oldest first. */
  recent(): RequestLogEntry[] {
    const slots = this.#slots;
    const out: RequestLogEntry[] = [];
    for (let n = this.#count - this.size; n < this.#count; n++) {
      const i = n % slots;
      const ids = this.#objectIds[i] as KeptIds;
      out.push(
        entryOf(
          this.#at[i] as string,
          this.#requestIds[i] as string,
          this.#tenantIds[i] as string | null,
          this.#methods[i] as string,
          this.#paths[i] as string,
          this.#statuses[i] as number,
          this.#latencies[i] as number,
          this.#replayed[i] === 1,
          this.#faults[i] as string | null,
          ids === null ? [] : typeof ids === 'string' ? [ids] : [...ids],
        ),
      );
    }
    return out;
  }

  /** Calls `listener` with each new entry (and opens the log); returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.#open = true;
    return listen(this.#listeners, listener, (all) => (this.#listening = all));
  }

  /**
   * {@link subscribe} for a listener that takes the entry's fields as arguments (and opens the
   * log): no entry object is built for it, so a listener that only formats a line (`serve`'s
   * stderr) costs no allocation of its own. `objectIds` is the app's own array: read it, do not
   * keep it. Returns the unsubscribe function.
   */
  subscribeFields(listener: FieldListener): () => void {
    this.#open = true;
    return listen(this.#fieldListeners, listener, (all) => (this.#fieldListening = all));
  }

  /**
   * Who an `Authorization` header lets read the feed: the control key every entry; a tenant's
   * live API key that tenant's entries, as long as the key stays live (a rotation ends its feed),
   * so that no tenant sees another's ids; anything else nobody (`null`).
   */
  static readerOf(authorization: string | null, access: FeedAccess): LogReader | null {
    if (authorization === null) return null;
    if (sameSecret(authorization, `Bearer ${access.controlKey}`)) return { all: true };
    const owner = access.keyOwner(authorization);
    return owner === null ? null : { all: false, tenantId: owner.tenantId, live: owner.live };
  }

  /**
   * A `text/event-stream` of the entries `reader` may see, one `data:` frame (the entry's JSON)
   * each, as they are recorded; `backlog` first sends the last N kept. A tenant's reader whose key
   * is no longer live is cut off at its next entry.
   */
  feed(reader: LogReader, options: { backlog?: number; signal?: AbortSignal | undefined } = {}): ReadableStream<Uint8Array> {
    const backlog = options.backlog ?? 0;
    return eventStream(
      (sink) => {
        if (Number.isInteger(backlog) && backlog > 0) {
          for (const entry of this.recent().filter((e) => sees(reader, e)).slice(-backlog)) sink.send(entry);
        }
        this.#feeds.add(sink);
        const off = this.subscribe((entry) => {
          if (!sees(reader, entry)) return;
          // A tenant's key that was rotated away reads no more.
          if (!reader.all && !reader.live()) sink.cut('The API key is no longer live.');
          else sink.send(entry);
        });
        return () => {
          off();
          this.#feeds.delete(sink);
        };
      },
      { hello: 'pix-usdt-sandbox request log', signal: options.signal },
    );
  }

  /**
   * Answers a request for the feed (`GET /_sandbox/logs[?backlog=N]`) with web types, for any host:
   * `405` for another method, `401` unless {@link RequestLog.readerOf} names a reader, else the
   * endless stream of {@link RequestLog.feed}. Refusals are the API's envelope with a request id.
   */
  serveFeed(request: Request, access: FeedAccess): Response {
    if (request.method !== 'GET') return refusal(405, 'method_not_allowed', `Use GET ${LOG_FEED_PATH}.`, { allow: 'GET' });
    const reader = RequestLog.readerOf(request.headers.get('authorization'), access);
    if (reader === null) {
      return refusal(401, 'authentication_failed', "Send an API key of this server (its tenant's requests) or the control key serve printed (every request): Authorization: Bearer <key>.");
    }
    const backlog = Number(new URL(request.url).searchParams.get('backlog') ?? '0');
    return new Response(this.feed(reader, { backlog, signal: request.signal }), { status: 200, headers: { ...FEED_HEADERS, 'x-request-id': newRequestId() } });
  }

  /** Ends every open feed (its host is stopping: they would hold its connections open forever). */
  closeFeeds(): void {
    for (const sink of [...this.#feeds]) sink.close();
  }
}
