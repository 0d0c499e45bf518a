/**
 * Matchers for vitest and Jest (`expect.extend(matchers)`): a conversion's status, an event
 * emitted, an API error's code, a webhook request's signature. Each failure message says what
 * was there instead. Their types join vitest's and Jest's `expect` in matchers-types.d.ts (the
 * build appends it to dist/testing.d.ts: scripts/testing-types.mjs).
 * @module
 */
import { isApiError, isPixUsdtError } from '../index.js';
import type { EventEnvelope } from '../models/index.js';
import { constructEvent, isWebhookVerificationError, type ConstructEventOptions, type WebhookSecret } from '../webhooks/index.js';

/** What vitest and Jest hand a matcher as `this` (the part these matchers read). */
export interface MatcherContext {
  /** True under `.not`. */
  isNot: boolean;
}

/** What a matcher answers. */
export interface MatcherResult {
  /** Whether the assertion holds (before `.not`). */
  pass: boolean;
  /** What a failing assertion prints: what was expected and what was there. */
  message: () => string;
}

/** Anything with a recorded event log: an array of events, a scenario's answer, or a sandbox. */
export type EventSource =
  | readonly EventEnvelope[]
  | {
      /** A scenario's answer: the events it caused (`null` where the deployment lists none). */
      events: readonly EventEnvelope[] | null;
    }
  | {
      /** A sandbox: its default tenant's recorded events. */
      events(): readonly EventEnvelope[];
    };

/** A webhook request to verify: a web `Request`, or its raw body and headers (a sandbox's `WebhookRequest`, a `DeliveredEvent`). */
export type WebhookRequestLike = Request | { body: string | Uint8Array; headers: Headers | Record<string, string | string[] | undefined> };

/** The matchers of pix-usdt/testing, as a test runner's `expect(...)` offers them. */
export interface PixUsdtMatchers<R = unknown> {
  /**
   * The conversion (or a scenario's answer holding one, or any object with a `status`) is in
   * `status`, and, when given, has that `standby_reason` or `failure_reason`.
   *
   * @example
   * ```ts
   * expect(await client.conversions.retrieve(id)).toHaveConversionStatus('standby', 'under_funded');
   * ```
   */
  toHaveConversionStatus(status: string, reason?: string): R;
  /**
   * An event of `type` is among the events (an array, a scenario's `events`, or a sandbox's
   * `events()`), for `objectId` when given (its `data.object.id`).
   *
   * @example
   * ```ts
   * expect(sandbox).toHaveEmittedEvent('conversion.completed', { objectId: conversion.id });
   * ```
   */
  toHaveEmittedEvent(type: string, options?: { objectId?: string }): R;
  /**
   * The value (a caught error, or the reason of `.rejects`) is an API error of pix-usdt with
   * `code`.
   *
   * @example
   * ```ts
   * await expect(client.quotes.accept(quote.id)).rejects.toBeApiError('quote_expired');
   * ```
   */
  toBeApiError(code: string): R;
  /**
   * The webhook request (a `Request`, or `{ body, headers }`) carries a valid signature for
   * `secret` (`constructEvent` of pix-usdt/webhooks, with its options). Asynchronous: `await` it.
   *
   * @example
   * ```ts
   * await expect(request).toVerifyWithSecret(endpoint.secret);
   * ```
   */
  toVerifyWithSecret(secret: WebhookSecret, options?: ConstructEventOptions): Promise<R>;
}

const q = (value: unknown): string => JSON.stringify(value);

/** A short description of any received value, for messages. */
function describe(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (value instanceof Error) return `${value.name}: ${value.message}`;
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') {
    const keys = Object.keys(value);
    return `an object with ${keys.length === 0 ? 'no keys' : `keys ${keys.slice(0, 8).join(', ')}${keys.length > 8 ? ', ...' : ''}`}`;
  }
  return `${typeof value} ${q(value)}`;
}

function result(context: MatcherContext, pass: boolean, yes: string, no: string): MatcherResult {
  // `message` is read when the assertion fails: under .not that is when it passed.
  return { pass, message: () => (context.isNot ? yes : no) };
}

interface StatusLike {
  id?: unknown;
  object?: unknown;
  status?: unknown;
  standby_reason?: unknown;
  failure_reason?: unknown;
}

function statusOf(received: unknown): StatusLike | null {
  if (received === null || typeof received !== 'object') return null;
  const r = received as StatusLike & { conversion?: unknown };
  if (typeof r.status === 'string') return r;
  if (r.conversion !== null && typeof r.conversion === 'object' && typeof (r.conversion as StatusLike).status === 'string') return r.conversion as StatusLike;
  return null;
}

function eventsOf(received: unknown): readonly EventEnvelope[] | string {
  if (Array.isArray(received)) return received as EventEnvelope[];
  if (received !== null && typeof received === 'object' && 'events' in received) {
    const events = (received as { events: unknown }).events;
    if (typeof events === 'function') return (events as () => EventEnvelope[]).call(received);
    if (Array.isArray(events)) return events as EventEnvelope[];
    if (events === null) return 'its events are null: the deployment does not list events (GET /v1/test_helpers/events), or the scenario ran with events: false';
  }
  return `expected an array of events, a scenario's answer or a sandbox, got ${describe(received)}`;
}

function listEvents(events: readonly EventEnvelope[]): string {
  if (events.length === 0) return 'no events at all';
  const shown = events.slice(-12).map((e) => `${e.type} (${String(e.data?.object?.['id'] ?? '?')})`);
  return `${events.length} event${events.length === 1 ? '' : 's'}: ${events.length > 12 ? '..., ' : ''}${shown.join(', ')}`;
}

/** Never a whole secret in a message: the prefix and the last four characters. */
function maskSecret(secret: WebhookSecret): string {
  const one = (s: string): string => (s.length <= 12 ? '(a short secret)' : `${s.slice(0, 6)}...${s.slice(-4)}`);
  return Array.isArray(secret) ? `[${secret.map((s) => one(String(s))).join(', ')}]` : one(String(secret));
}

/** The matchers, for `expect.extend(matchers)` in vitest or Jest. */
export const matchers = {
  /** {@link PixUsdtMatchers.toHaveConversionStatus}. */
  toHaveConversionStatus(this: MatcherContext, received: unknown, status: string, reason?: string): MatcherResult {
    const c = statusOf(received);
    if (c === null) {
      return { pass: false, message: () => `expected a conversion (an object with a status), got ${describe(received)}` };
    }
    const got = c.status === 'standby' ? c.standby_reason : c.status === 'failed' ? c.failure_reason : null;
    const pass = c.status === status && (reason === undefined || got === reason);
    const name = `${typeof c.object === 'string' ? c.object : 'conversion'} ${String(c.id ?? '')}`.trim();
    const want = `${status}${reason === undefined ? '' : ` (${reason})`}`;
    const is = `${String(c.status)}${got === null || got === undefined ? '' : ` (${String(got)})`}`;
    return result(this, pass, `expected ${name} not to be ${want}, but it is`, `expected ${name} to be ${want}, but it is ${is}`);
  },

  /** {@link PixUsdtMatchers.toHaveEmittedEvent}. */
  toHaveEmittedEvent(this: MatcherContext, received: unknown, type: string, options: { objectId?: string } = {}): MatcherResult {
    const events = eventsOf(received);
    if (typeof events === 'string') return { pass: false, message: () => events };
    const found = events.find((e) => e.type === type && (options.objectId === undefined || e.data?.object?.['id'] === options.objectId));
    const what = `event ${type}${options.objectId === undefined ? '' : ` for ${options.objectId}`}`;
    const other = options.objectId === undefined ? [] : events.filter((e) => e.type === type);
    const hint = other.length > 0 ? ` (${type} was emitted for ${other.map((e) => String(e.data?.object?.['id'])).join(', ')})` : '';
    return result(this, found !== undefined, `expected no ${what}, but ${found?.id ?? ''} is one (created ${found?.created_at ?? ''})`, `expected an ${what}; got ${listEvents(events)}${hint}`);
  },

  /** {@link PixUsdtMatchers.toBeApiError}. */
  toBeApiError(this: MatcherContext, received: unknown, code: string): MatcherResult {
    if (isApiError(received)) {
      const request = received.requestId === null ? '' : `, request ${received.requestId}`;
      // The client's messages already open with the code.
      const text = received.message.startsWith(`${received.code}: `) ? received.message : `${received.code}: ${received.message}`;
      const is = `${received.name} ${received.status} ${text}${request}`;
      return result(this, received.code === code, `expected an error other than the API error ${code}, got it (${is})`, `expected the API error ${code}, got ${is}`);
    }
    const kind = isPixUsdtError(received) ? `${received.name} (not an answer of the API): ${received.message}` : received instanceof Error ? describe(received) : `no error: ${describe(received)}`;
    return { pass: false, message: () => `expected the API error ${code}, got ${kind}` };
  },

  /** {@link PixUsdtMatchers.toVerifyWithSecret}. */
  async toVerifyWithSecret(this: MatcherContext, received: unknown, secret: WebhookSecret, options: ConstructEventOptions = {}): Promise<MatcherResult> {
    const masked = maskSecret(secret);
    let verify: Promise<unknown>;
    if (typeof Request !== 'undefined' && received instanceof Request) {
      verify = constructEvent(received.clone(), secret, options);
    } else if (received !== null && typeof received === 'object' && 'body' in received && 'headers' in received) {
      const r = received as { body: string | Uint8Array; headers: Headers | Record<string, string> };
      verify = constructEvent(r.body, r.headers, secret, options);
    } else {
      return { pass: false, message: () => `expected a webhook request (a Request, or { body, headers }), got ${describe(received)}` };
    }
    try {
      const event = (await verify) as EventEnvelope;
      return result(this, true, `expected the webhook request not to verify with ${masked}, but it does (event ${event.id}, ${event.type})`, '');
    } catch (error) {
      const why = isWebhookVerificationError(error) ? `${error.reason}: ${error.message}` : describe(error);
      return result(this, false, '', `expected the webhook request to verify with ${masked}, but it does not (${why})`);
    }
  },
};
