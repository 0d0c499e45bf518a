/**
 * The HTTP core: one logical call = one Idempotency-Key, one deadline, one caller signal, and
 * as many attempts as the retry policy allows. Each attempt is one `fetch`; the loop here decides.
 *
 * Why not ky: the reference's rules need a different schedule for 500 than for 429/502-504, a
 * decision that depends on the error code in the body, one deadline across attempts and waits,
 * and an injectable sleep, which ky's retry cannot express; and what is left for ky (building one
 * request) cost more than the whole speed budget of issue 6 (ky alone is about 2x a bare fetch
 * even with a `beforeRequest` hook skipping its clone) and 5 kB of the 15 kB browser budget.
 * Measurements in docs/decisions.md ("Client core") and docs/performance.md.
 *
 * The per-attempt time limit races a timer against the exchange (answer and body) instead of
 * binding an AbortSignal to every request: in Node 20 a signal on a request costs about as much
 * as the request itself. The caller's own signal, when given, is passed to `fetch` as it is.
 * @module
 */
import type { EventEmitter } from 'eventemitter3';
import type { ListEnvelope } from '../models/common.js';
import { summarizeIssues } from '../models/issues.js';
import { checkAnswer, type AnswerShape } from '../models/answers-check.js';
import { buildQuery } from '../internal/query.js';
import { uuidv4 } from '../internal/uuid.js';
import {
  AbortError,
  ConnectionError,
  ResponseValidationError,
  TimeoutError,
  invalidArgument,
  makeApiError,
  type PixUsdtError,
} from './errors.js';
import type { NormalizedOptions } from './options.js';
import { ApiPromise, type WithResponse } from './api-promise.js';
import { Page, PagePromise } from './pagination.js';
import { decideRetry, retryAfterMs, type AttemptFailure } from './retry.js';
import { unwatch, watch, type Watch } from './watchdog.js';
import type { ClientEvents, HttpMethod, RequestOptions, WarningEvent } from './types.js';

/** One endpoint call, as a resource method describes it. */
export interface RequestSpec<T> {
  method: HttpMethod;
  /** Path with parameters already encoded by the `path` tag. */
  path: string;
  query?: object | undefined;
  body?: unknown;
  /** The shape of the answer (src/models/answers-shapes.ts); `null` for an empty answer (204). */
  model: AnswerShape<T> | null;
  /** Not retried on an unknown error code (the reference's rule). */
  destructive?: boolean | undefined;
}

// Failures that happen before a single byte leaves: such an attempt cannot have been applied.
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ERR_INVALID_URL']);

const INDETERMINATE =
  ' The request may have been applied: retry with the same idempotencyKey to learn the outcome without applying it twice.';

type Stop = 'timeout' | 'abort';

/**
 * An answer as the transport reads it. From a `fetch`, a `Response` read whole; from the sandbox in
 * this process ({@link IN_PROCESS}), the sandbox's own answer, with the `Response` built only if the
 * caller asks for it (`.withResponse().response`).
 */
interface Received {
  readonly status: number;
  readonly text: string;
  header(name: string): string | null;
  response(): Response;
}

/**
 * The key under which `sandbox.fetch` carries its in-process exchange (src/sandbox/http/fetch.ts,
 * the same global symbol: the client does not import the sandbox). Called as `fetch` is, it
 * answers a {@link Received} instead of a `Response` (issue 34: building and reading a `Response`
 * was about a tenth of an in-process call). It is `{ of, exchange }`, used only when `of` is the
 * `fetch` option itself: a `fetch` that wraps `sandbox.fetch` (a logger, msw, a test spy, which
 * may copy its properties) is called as any `fetch`.
 */
const IN_PROCESS = Symbol.for('pix-usdt.in-process');

type Exchange = (input: string, init: RequestInit) => Promise<Received>;

type Answer = { ok: true; received: Received } | { ok: false; kind: 'network' | 'timeout' | 'abort'; cause: unknown; sent: boolean };

// A `fetch` answer read whole, as a {@link Received}.
function readWhole(response: Response, text: string): Received {
  return { status: response.status, text, header: (name) => response.headers.get(name), response: () => response };
}

/** Sends requests for the resources. Holds the API key in a private field only. */
export class Transport {
  readonly #o: NormalizedOptions;
  readonly #authorization: string;
  readonly #events: EventEmitter<ClientEvents>;
  readonly #exchange: Exchange | undefined;

  constructor(options: NormalizedOptions, events: EventEmitter<ClientEvents>) {
    this.#o = options;
    // Only on the very function that carries it: a spy or wrapper may copy the property.
    const carried = (options.fetch as { [IN_PROCESS]?: { of?: unknown; exchange?: unknown } } | undefined)?.[IN_PROCESS];
    this.#exchange = carried?.of === options.fetch && typeof carried?.exchange === 'function' ? (carried.exchange as Exchange) : undefined;
    this.#authorization = `Bearer ${options.apiKey}`;
    this.#events = events;
  }

  /** Sends one logical call and parses its answer; `.withResponse()` on the result reaches the response. */
  request<T>(spec: RequestSpec<T>, options: RequestOptions | undefined): ApiPromise<T> {
    return new ApiPromise(this.#send(spec, options));
  }

  async #send<T>(spec: RequestSpec<T>, options: RequestOptions | undefined): Promise<Answered<T>> {
    const o = this.#o;
    const now = o.now;
    const start = now();
    const deadline = start + (options?.deadlineMs ?? o.deadlineMs);
    const maxRetries = options?.maxRetries ?? o.maxRetries;
    const timeoutMs = options?.timeoutMs ?? o.timeoutMs;
    const signal = options?.signal;
    const { method, path } = spec;
    const mutation = method !== 'GET';
    // Created once per logical call: every retry carries the same key.
    const idempotencyKey = mutation ? (options?.idempotencyKey ?? o.idempotencyKey?.() ?? uuidv4()) : undefined;

    const url = o.baseUrl + path + buildQuery(spec.query);
    const headers: Record<string, string> = { authorization: this.#authorization, accept: 'application/json' };
    let body: string | undefined;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    if (spec.body !== undefined) {
      body = JSON.stringify(spec.body);
      headers['content-type'] = 'application/json';
    }

    const events = this.#events;
    const base = (attempt: number) => ({ method, path, attempt, idempotencyKey, elapsedMs: now() - start });
    // A mutation attempt that may have reached the server without an answer coming back.
    let unanswered = false;
    const aborted = (): PixUsdtError =>
      new AbortError(`The call was aborted.${mutation && unanswered ? INDETERMINATE : ''}`, {
        code: 'aborted',
        idempotencyKey,
        indeterminate: mutation && unanswered,
        cause: signal?.reason,
      });

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw aborted();
      const remaining = deadline - now();
      if (remaining <= 0) throw this.#timeout(`The call's deadline passed before attempt ${attempt}.`, idempotencyKey, mutation && unanswered);
      if (events.listenerCount('request') > 0) events.emit('request', base(attempt));

      const answer = await this.#attempt(url, method, headers, body, Math.min(timeoutMs, remaining), signal);

      let failure: AttemptFailure;
      let error: PixUsdtError;
      if (answer.ok) {
        const received = answer.received;
        const { status, text } = received;
        const headerRequestId = received.header('x-request-id');
        if (events.listenerCount('response') > 0) events.emit('response', { ...base(attempt), status, requestId: headerRequestId });
        if (status >= 200 && status < 300) {
          // The warning's event is built only for a warning (`base`, with its clock read).
          const data = this.#parse(spec.model, text, status, headerRequestId, idempotencyKey, base, attempt);
          // The reference's spelling of the header (names are case-insensitive).
          const idempotentReplayed = received.header('Idempotent-Replayed') === 'true';
          return new Answered(data, received, headerRequestId, idempotencyKey, idempotentReplayed, attempt);
        }
        const envelope = parseJson(text);
        const code = typeof envelope?.['code'] === 'string' ? envelope['code'] : undefined;
        const details = envelope?.['details'] as Record<string, unknown> | undefined;
        const wait = retryAfterMs(received.header('retry-after'), details?.['retry_after_seconds'], now());
        failure = { kind: 'status', status, code, retryAfterMs: wait };
        const indeterminate = mutation && unanswered && status >= 500;
        error = makeApiError({ status, body: envelope, headerRequestId, idempotencyKey, indeterminate });
        if (indeterminate) error = withSuffix(error);
      } else {
        if (answer.kind === 'abort') {
          unanswered ||= answer.sent;
          throw aborted();
        }
        unanswered ||= mutation && answer.sent;
        failure = { kind: answer.kind };
        const indeterminate = mutation && unanswered;
        const suffix = indeterminate ? INDETERMINATE : '';
        error =
          answer.kind === 'timeout'
            ? this.#timeout(`No answer within ${Math.min(timeoutMs, remaining)} ms.${suffix}`, idempotencyKey, indeterminate, answer.cause)
            : new ConnectionError(`Connection failed: ${describe(answer.cause)}.${suffix}`, {
                code: 'connection_error',
                idempotencyKey,
                indeterminate,
                cause: answer.cause,
              });
      }

      const decision = decideRetry(failure, { retriesDone: attempt - 1, maxRetries, destructive: spec.destructive === true });
      // A wait that would end past the deadline is not started: the last error is the answer.
      if (!decision.retry || now() + decision.delayMs >= deadline) throw error;
      if (events.listenerCount('retry') > 0) {
        events.emit('retry', {
          ...base(attempt),
          delayMs: decision.delayMs,
          reason: decision.reason,
          status: error.status,
          code: failure.kind === 'status' ? failure.code : undefined,
          requestId: error.requestId,
        });
      }
      try {
        await o.sleep(decision.delayMs, signal);
      } catch (cause) {
        if (signal?.aborted) throw aborted();
        throw cause;
      }
    }
  }

  /** Sends a listing and wraps its answer in a page that knows how to fetch the next. */
  list<T>(path: string, item: AnswerShape<ListEnvelope<T>>, params: { limit?: number | undefined } | undefined, options: RequestOptions | undefined): PagePromise<T> {
    const limit = params?.limit;
    if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= 100)) {
      return new PagePromise(Promise.reject(invalidArgument('limit', 'an integer from 1 to 100', String(limit))));
    }
    const fetchPage = async (cursor: string | undefined): Promise<WithResponse<Page<T>>> => {
      const query = cursor === undefined ? params : { ...params, cursor };
      const answer = await this.#send({ method: 'GET', path, query, model: item }, options);
      const page = new Page(answer.data, async (next) => (await fetchPage(next)).data);
      return answer.with(page);
    };
    return new PagePromise(fetchPage(undefined));
  }

  async #attempt(
    url: string,
    method: HttpMethod,
    headers: Record<string, string>,
    body: string | undefined,
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<Answer> {
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = body;
    if (signal !== undefined) init.signal = signal;
    const custom = this.#o.fetch;
    const exchange = this.#exchange;
    let sent: Promise<Response | Received>;
    try {
      // `fetch(...)` as a plain call: a detached `window.fetch` throws "Illegal invocation".
      sent = exchange !== undefined ? exchange(url, init) : custom === undefined ? fetch(url, init) : custom(url, init);
    } catch (error) {
      sent = Promise.reject(error); // a custom fetch that throws is a failed attempt like any other
    }
    let watched: Watch | undefined;
    let onAbort: (() => void) | undefined;
    try {
      // One promise, settled by the first of: the answer and its body, the time limit (one
      // timer for every attempt in flight: ./watchdog.ts), the caller's abort. A late answer
      // (or failure) after a stop is dropped.
      const outcome = await new Promise<Received | Stop | { error: unknown }>((resolve) => {
        watched = watch(timeoutMs, () => resolve('timeout'));
        // A custom fetch may ignore signals; the abort must still end the attempt at once.
        if (signal !== undefined) signal.addEventListener('abort', (onAbort = () => resolve('abort')), { once: true });
        const failed = (error: unknown): void => resolve({ error });
        // The in-process exchange answers a Received: handed on as it is, with no promise of a body.
        if (exchange !== undefined) sent.then(resolve as (answer: Response | Received) => void, failed);
        else sent.then(async (answer) => resolve(readWhole(answer as Response, await (answer as Response).text()))).catch(failed);
      });
      if (typeof outcome === 'string') return { ok: false, kind: outcome, cause: outcome === 'abort' ? signal?.reason : undefined, sent: true };
      if ('error' in outcome) throw outcome.error;
      return { ok: true, received: outcome };
    } catch (cause) {
      if (signal?.aborted === true) return { ok: false, kind: 'abort', cause, sent: true };
      return { ok: false, kind: 'network', cause, sent: !NOT_SENT_CODES.has(errorCode(cause)) };
    } finally {
      if (watched !== undefined) unwatch(watched);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
    }
  }

  #parse<T>(
    model: AnswerShape<T> | null,
    text: string,
    status: number,
    requestId: string | null,
    idempotencyKey: string | undefined,
    event: (attempt: number) => { method: HttpMethod; path: string; attempt: number; idempotencyKey: string | undefined; elapsedMs: number },
    attempt: number,
  ): T {
    if (model === null) return undefined as T;
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new ResponseValidationError(`HTTP ${status}: the answer is not JSON`, {
        status,
        code: 'response_validation_error',
        requestId,
        idempotencyKey,
      });
    }
    const mode = this.#o.validation;
    if (mode === 'off') return data as T;
    const strict = mode === 'strict';
    const issues = checkAnswer(model, data, strict);
    if (issues === undefined) return data as T;
    const base = event(attempt);
    const message = `The answer to ${base.method} ${base.path} does not match the model`;
    if (strict) {
      throw new ResponseValidationError(`${message}: ${summarizeIssues(issues, issues.length)}`, {
        status,
        code: 'response_validation_error',
        requestId,
        details: { issues },
        idempotencyKey,
      });
    }
    this.#warn({ ...base, message, status, requestId, issues });
    return data as T;
  }

  #warn(event: WarningEvent): void {
    if (this.#events.listenerCount('warning') > 0) this.#events.emit('warning', event);
  }

  #timeout(message: string, idempotencyKey: string | undefined, indeterminate: boolean, cause?: unknown): PixUsdtError {
    return new TimeoutError(message, { code: 'timeout', idempotencyKey, indeterminate, cause });
  }

  /** What `JSON.stringify(client)` shows: never the key. */
  toJSON(): Record<string, unknown> {
    const { baseUrl, environment, maxRetries, timeoutMs, deadlineMs, validation } = this.#o;
    return { baseUrl, environment, maxRetries, timeoutMs, deadlineMs, validation };
  }
}

/**
 * A call's result as the transport hands it to {@link ApiPromise}: `data` and what the answer
 * said, the `response` read from the answer only when asked for (from the sandbox in this
 * process, only then built). `withResponse()` gives a plain copy of it.
 */
class Answered<T> implements WithResponse<T> {
  readonly #received: Received;

  constructor(
    readonly data: T,
    received: Received,
    readonly requestId: string | null,
    readonly idempotencyKey: string | undefined,
    readonly idempotentReplayed: boolean,
    readonly attempts: number,
  ) {
    this.#received = received;
  }

  get response(): Response {
    return this.#received.response();
  }

  /** The same answer with other data (a page over the listing's envelope). */
  with<U>(data: U): Answered<U> {
    return new Answered(data, this.#received, this.requestId, this.idempotencyKey, this.idempotentReplayed, this.attempts);
  }
}

function parseJson(text: string): Record<string, unknown> | undefined {
  if (text === '') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function errorCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : '';
}

function describe(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const text = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && cause.message !== '' ? `${text} (${cause.message})` : text;
}

// The same error, with the indeterminate advice added to its message.
function withSuffix(error: PixUsdtError): PixUsdtError {
  Object.defineProperty(error, 'message', { value: error.message + INDETERMINATE, enumerable: false, writable: true, configurable: true });
  return error;
}
