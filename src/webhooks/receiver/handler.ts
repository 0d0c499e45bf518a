/**
 * `createWebhookHandler`: an effectively-once webhook receiver. Verify, claim the event id with a
 * lease, (optionally) read the resource back, run the partner's handler and mark the event
 * processed together, or release the claim so that the platform's retry runs it again.
 * @module
 */
import type { Conversion, Transaction } from '../../models/conversions.js';
import type { User } from '../../models/users.js';
import { constructEvent, type ConstructEventOptions } from '../construct.js';
import { isWebhookVerificationError } from '../errors.js';
import type { WebhookEvent } from '../events.js';
import type { HeadersInput } from '../headers.js';
import type { WebhookSecret } from '../signature.js';
import {
  type ClaimResult,
  type EventClaim,
  type WebhookEventStore,
  WebhookHandlerTimeoutError,
  createMemoryEventStore,
  isHandlerTimeoutError,
  isLeaseLostError,
} from './store.js';

/**
 * The client calls `confirm: true` makes: `new PixUsdt(...)` fits, as does any object with these
 * three methods.
 */
export interface ConfirmClient {
  /** Conversions (`conversion.*`, `transaction.sending_pix`). */
  conversions: {
    /** `GET /v1/conversions/{id}`. */
    retrieve(id: string): PromiseLike<Conversion>;
  };
  /** Transactions (`transaction.completed`, `transaction.failed`). */
  transactions: {
    /** `GET /v1/transactions/{id}`. */
    retrieve(id: string): PromiseLike<Transaction>;
  };
  /** Users (`user.*`). */
  users: {
    /** `GET /v1/users/{id}`. */
    retrieve(id: string): PromiseLike<User>;
  };
}

/** The resource read back by `confirm: true`: `null` when the platform no longer has it (404). */
export type ConfirmedResource = Conversion | Transaction | User | null;

/** What the handler is given besides the event. */
export interface WebhookEventContext<Tx> {
  /** The store's unit of work: the SQL transaction of {@link createSqlEventStore}; `undefined` for the memory store. */
  tx: Tx;
  /** How many times this event was claimed, this one included: above 1, an earlier attempt failed or crashed. */
  attempt: number;
  /**
   * With `confirm: true`, the resource as the platform has it now (a `Conversion` for
   * `conversion.*` and `transaction.sending_pix`, a `Transaction` for `transaction.completed` and
   * `.failed`, a `User` for `user.*`; `null` if it is gone). `undefined` without `confirm`, and
   * for kinds this SDK does not know.
   */
  resource: ConfirmedResource | undefined;
}

/** How one request ended. */
export type WebhookOutcome =
  /** The handler ran and the event is marked processed (200). */
  | 'processed'
  /** The event was processed before: acknowledged without running the handler (200). */
  | 'duplicate'
  /** Another copy of the event is being processed right now (503: the platform retries). */
  | 'in_progress'
  /** The signature, the time or the envelope is wrong (400, with the reason). */
  | 'invalid'
  /** The handler threw; the claim is released, so the retry runs it again (500). */
  | 'handler_failed'
  /** The handler ran past `onEventTimeoutMs`: its work is abandoned, the claim released (503: the platform retries). */
  | 'handler_timeout'
  /** `confirm: true` could not read the resource back (503: the retry tries again). */
  | 'confirm_failed'
  /** The store failed (503). */
  | 'store_failed'
  /** The raw body was not available: a parser ran first, or a configuration error (500). */
  | 'misconfigured'
  /** Not a POST (405). */
  | 'method_not_allowed'
  /** The body is over `maxBodyBytes` (413). */
  | 'too_large';

/** What the handler answers, for adapters (Node, Express, Fastify) and for logs. */
export interface WebhookAnswer {
  status: number;
  headers: Record<string, string>;
  /** JSON text. */
  body: string;
  outcome: WebhookOutcome;
  /** The event id, once verified. */
  eventId?: string;
  /** The event kind, once verified. */
  eventType?: string;
  /** The verification failure's reason (`invalid`, `misconfigured`). */
  reason?: string;
  /** The claim's attempt number (`processed`, `handler_failed`). */
  attempt?: number;
}

/** What {@link WebhookHandler.handle} takes: the raw body and the headers. */
export interface WebhookInput {
  /** The body exactly as received (string or bytes). A parsed object is refused (`misconfigured`). */
  body: unknown;
  headers: HeadersInput;
  /** The HTTP method, when known: anything but POST is answered 405. */
  method?: string | undefined;
}

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions<Tx = undefined> {
  /** The endpoint's signing secret (`whsec_...`), or several during a rotation. */
  secret?: WebhookSecret;
  /** The same as `secret`, as a list. */
  secrets?: readonly string[];
  /** The partner's work for one event. Throw to answer 5xx: the event is not marked processed, and the platform's retry runs it again. */
  onEvent: (event: WebhookEvent, context: WebhookEventContext<Tx>) => unknown;
  /**
   * Where processed event ids are kept. Default: an in-memory store (one process; forgets on
   * restart). For a handler that writes to a database, {@link createSqlEventStore}.
   */
  store?: WebhookEventStore<Tx>;
  /** How long a claim holds before another delivery may take the event over (a crashed handler), in ms. Default 60,000. */
  leaseMs?: number;
  /**
   * The time limit of one `onEvent` call and its commit (from the start of `onEvent`: a wait for a connection does not count), in ms. Past it the handler stops waiting: the store
   * abandons the unit of work (a SQL store rolls the transaction back), the claim is released, and
   * the answer is **503** (`handler_timeout`, `Retry-After: 30`), so the platform retries and
   * neither another copy of the event nor an unrelated one waits behind a hung handler. Default
   * 8,000 (under the platform's 10 s attempt timeout), or half of `leaseMs` when that is shorter;
   * it must be below `leaseMs`.
   */
  onEventTimeoutMs?: number;
  /** Read the resource back with `client` before `onEvent` (fetch-after-notify): `context.resource`. */
  confirm?: boolean;
  /** The client `confirm` reads with. */
  client?: ConfirmClient;
  /** Verification options: tolerance, clock, header names (`constructEvent`'s, without `seen`). */
  verify?: Omit<ConstructEventOptions, 'seen'>;
  /** Bodies above this many bytes are answered 413 by the adapters. Default 1,000,000. */
  maxBodyBytes?: number;
  /** Told of every failure (the handler's error, the store's, a misconfiguration), for logs. Never told a secret. */
  onError?: (error: unknown, answer: WebhookAnswer) => void;
  /** Told of every answer (metrics: duplicates dropped, retries seen, failures). */
  onAnswer?: (answer: WebhookAnswer) => void;
}

/**
 * A webhook receiver: a fetch handler `(Request) => Promise<Response>` (Workers, Deno, Bun,
 * Next.js route handlers, Hono as is), plus `handle` for adapters that hold the raw body.
 */
export interface WebhookHandler {
  (request: Request): Promise<Response>;
  /** Processes one delivery given its raw body and headers. Never rejects. */
  handle(input: WebhookInput): Promise<WebhookAnswer>;
  /** The largest body accepted, in bytes (adapters read at most this much). */
  readonly maxBodyBytes: number;
}

const JSON_HEADERS = { 'content-type': 'application/json' };

function answer(status: number, outcome: WebhookOutcome, payload: Record<string, unknown>, extra: Partial<WebhookAnswer> = {}, headers: Record<string, string> = {}): WebhookAnswer {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body: JSON.stringify(payload), outcome, ...extra };
}

/** Another delivery holds the event (a live claim, or it took this one's over): 503, retried after 30 s, when it is processed. */
function inProgress(extra: Partial<WebhookAnswer>): WebhookAnswer {
  return answer(503, 'in_progress', { error: 'in_progress' }, extra, { 'retry-after': '30' });
}

function statusOf(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === 'number' ? status : undefined;
}

/** Reads the event's resource back; `undefined` for kinds this SDK does not know. */
async function readBack(client: ConfirmClient, event: WebhookEvent): Promise<ConfirmedResource | undefined> {
  const id = (event.data.object as { id?: unknown }).id;
  if (typeof id !== 'string') return undefined;
  const type = event.type as string;
  let read: PromiseLike<ConfirmedResource> | undefined;
  if (type.startsWith('conversion.') || type === 'transaction.sending_pix') read = client.conversions.retrieve(id);
  else if (type === 'transaction.completed' || type === 'transaction.failed') read = client.transactions.retrieve(id);
  else if (type.startsWith('user.')) read = client.users.retrieve(id);
  if (read === undefined) return undefined;
  try {
    return await read;
  } catch (error) {
    if (statusOf(error) === 404) return null;
    throw error;
  }
}

/** A message safe to store and log: the error's name and message, never its stack. */
function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

/**
 * Creates an effectively-once webhook receiver.
 *
 * For each delivery, in order:
 * 1. verifies it (`constructEvent`): a bad signature, time or envelope answers **400** with the
 *    reason; a parsed body (a JSON parser ran before the route) answers **500**
 *    (`misconfigured`), so the platform retries once the route is fixed;
 * 2. claims the event id in the store with a lease: an event processed before answers **200**
 *    without calling `onEvent`; one another copy is processing right now answers **503**;
 * 3. with `confirm: true`, reads the resource back with `client` (**503** if that fails);
 * 4. runs `onEvent` and marks the event processed together (a SQL store: in one transaction,
 *    handed to `onEvent` as `context.tx`), and answers **200**. If `onEvent` throws, the claim is
 *    released and the answer is **500**: the platform's retry runs it again. If it runs past
 *    `onEventTimeoutMs` (from the start of `onEvent` through the commit), its work is abandoned, the claim released and the answer is **503**. A claim
 *    whose handler crashed expires after `leaseMs`, and the next retry takes the event over.
 *
 * @example
 * ```ts
 * const handler = createWebhookHandler({
 *   secret: process.env.PIX_USDT_WEBHOOK_SECRET!,
 *   store: createSqlEventStore({ db }),
 *   onEvent: async (event, { tx }) => {
 *     if (event.type === 'conversion.completed') await credit(tx, event.data.object);
 *   },
 * });
 * export default { fetch: handler }; // Workers, Bun, Deno; or toNodeHandler(handler), expressWebhook, fastifyWebhook
 * ```
 */
export function createWebhookHandler<Tx = undefined>(options: WebhookHandlerOptions<Tx>): WebhookHandler {
  const secrets: readonly string[] = [
    ...(options.secret === undefined ? [] : typeof options.secret === 'string' ? [options.secret] : options.secret),
    ...(options.secrets ?? []),
  ];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) {
    throw new TypeError('createWebhookHandler needs the endpoint secret: { secret: "whsec_..." } (or secrets: [...] during a rotation)');
  }
  if (typeof options.onEvent !== 'function') throw new TypeError('createWebhookHandler needs onEvent: (event, context) => ...');
  if (options.confirm === true && options.client === undefined) {
    throw new TypeError('confirm: true reads the resource back with a client: pass client: new PixUsdt({ apiKey })');
  }
  const leaseMs = options.leaseMs ?? 60_000;
  if (!(leaseMs > 0) || !Number.isFinite(leaseMs)) throw new TypeError('leaseMs must be a positive number of milliseconds');
  const onEventTimeoutMs = options.onEventTimeoutMs ?? Math.min(8_000, leaseMs / 2);
  if (!(onEventTimeoutMs > 0) || !(onEventTimeoutMs < leaseMs)) {
    throw new TypeError(`onEventTimeoutMs must be a positive number of milliseconds below leaseMs (${leaseMs})`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? 1_000_000;
  const store = options.store ?? (createMemoryEventStore() as unknown as WebhookEventStore<Tx>);
  const verify: ConstructEventOptions = { ...options.verify };
  const { onEvent, client, onError, onAnswer } = options;
  const confirm = options.confirm === true;

  const tell = (result: WebhookAnswer, error?: unknown): WebhookAnswer => {
    try {
      if (error !== undefined) onError?.(error, result);
      onAnswer?.(result);
    } catch {
      // A logging hook must not change the answer.
    }
    return result;
  };

  async function handle(input: WebhookInput): Promise<WebhookAnswer> {
    if (input.method !== undefined && input.method.toUpperCase() !== 'POST') {
      return tell(answer(405, 'method_not_allowed', { error: 'method_not_allowed' }, {}, { allow: 'POST' }));
    }
    let event: WebhookEvent;
    try {
      event = await constructEvent(input.body as never, input.headers, secrets, verify);
    } catch (error) {
      if (isWebhookVerificationError(error)) {
        const ours = error.reason === 'parsed_body' || error.reason === 'missing_body';
        const result = ours
          ? answer(500, 'misconfigured', { error: 'raw_body_unavailable', reason: error.reason, message: error.message }, { reason: error.reason })
          : answer(400, 'invalid', { error: 'invalid_webhook', reason: error.reason, message: error.message }, { reason: error.reason });
        return tell(result, ours ? error : undefined);
      }
      return tell(answer(500, 'misconfigured', { error: 'misconfigured' }), error);
    }
    const ids = { eventId: event.id, eventType: event.type as string };

    let claimed: ClaimResult;
    try {
      claimed = await store.claim(event.id, { leaseMs, eventType: event.type });
    } catch (error) {
      return tell(answer(503, 'store_failed', { error: 'store_unavailable' }, ids), error);
    }
    if (claimed.status === 'processed') return tell(answer(200, 'duplicate', { received: true, duplicate: true }, ids));
    if (claimed.status === 'in_progress') return tell(inProgress(ids));
    const claim: EventClaim = claimed;
    const attempt = { ...ids, attempt: claim.attempt };

    const giveBack = async (error: unknown): Promise<void> => {
      try {
        await store.release(claim, describe(error));
      } catch {
        // The lease expires anyway: the retry takes the event over then.
      }
    };

    let resource: ConfirmedResource | undefined;
    if (confirm) {
      try {
        resource = await readBack(client as ConfirmClient, event);
      } catch (error) {
        await giveBack(error);
        return tell(answer(503, 'confirm_failed', { error: 'confirm_failed' }, attempt), error);
      }
    }

    // The time limit runs from the start of onEvent (not the wait for a connection) through the
    // commit. It fails the work (so the store rolls its transaction back) and, should the store
    // still wait (a rollback queued behind the handler's own query), stops waiting for it.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let expire!: (error: Error) => void;
    const expired = new Promise<never>((_, reject) => (expire = reject));
    expired.catch(() => undefined);
    const work = (tx: Tx): Promise<unknown> => {
      timer = setTimeout(() => expire(new WebhookHandlerTimeoutError(event.id, onEventTimeoutMs)), onEventTimeoutMs);
      return Promise.race([Promise.resolve().then(() => onEvent(event, { tx, attempt: claim.attempt, resource })), expired]);
    };
    try {
      await Promise.race([store.complete(claim, work), expired]);
    } catch (error) {
      await giveBack(error);
      if (isLeaseLostError(error)) {
        return tell(inProgress(attempt), error);
      }
      if (isHandlerTimeoutError(error)) {
        return tell(answer(503, 'handler_timeout', { error: 'handler_timeout' }, attempt, { 'retry-after': '30' }), error);
      }
      return tell(answer(500, 'handler_failed', { error: 'handler_failed' }, attempt), error);
    } finally {
      clearTimeout(timer);
    }
    return tell(answer(200, 'processed', { received: true }, attempt));
  }

  const fetchHandler = async (request: Request): Promise<Response> => {
    let result: WebhookAnswer;
    if (request.method.toUpperCase() !== 'POST') {
      result = await handle({ body: '', headers: request.headers, method: request.method });
    } else {
      const body = await readRequest(request, maxBodyBytes);
      result = body === null ? tell(answer(413, 'too_large', { error: 'payload_too_large' })) : await handle({ body, headers: request.headers });
    }
    return new Response(result.body, { status: result.status, headers: result.headers });
  };
  return Object.assign(fetchHandler, { handle, maxBodyBytes });
}

/** The body as bytes (not `text()`, which would change invalid UTF-8), or `null` beyond `limit`. */
async function readRequest(request: Request, limit: number): Promise<Uint8Array | null> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) return null;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(read.value);
  }
  return concat(chunks, size);
}

/** @internal One buffer of `chunks`. */
export function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
