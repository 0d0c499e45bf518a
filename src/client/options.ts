/**
 * Client options: a table of defaults, the caller's input spread over it, validated once here.
 * The rest of the client only ever sees {@link NormalizedOptions}.
 * @module
 */
import type { ValidationMode } from '../models/common.js';
import { API_KEY_FORMAT } from '../models/api-key.js';
import { sleep as realSleep } from '../internal/sleep.js';
import { InvalidOptionsError } from './errors.js';

/** The sandbox API (keys `sk_test_...`). The reference shows only a placeholder; see docs/decisions.md. */
export const SANDBOX_BASE_URL = 'https://sandbox.pix-usdt.com';
/** The production API (keys `sk_live_...`). The reference shows only a placeholder; see docs/decisions.md. */
export const PRODUCTION_BASE_URL = 'https://api.pix-usdt.com';

/** A web-standard `fetch` (the global one, `sandbox.fetch`, an msw-patched one, ...). */
export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

/** Options of `new PixUsdt(...)`. */
export interface ClientOptions {
  /** `sk_test_...` (sandbox) or `sk_live_...` (production). Never logged, never in errors or events. */
  apiKey: string;
  /** Overrides the URL chosen from the key prefix. `https:` only, except loopback hosts (a local sandbox server). */
  baseUrl?: string | undefined;
  /** The `fetch` to use; defaults to the global one, looked up at each call. */
  fetch?: FetchLike | undefined;
  /** Retries after the first attempt, at most (default 5: the length of the reference's 500 schedule). */
  maxRetries?: number | undefined;
  /** Time limit of one attempt, in ms, response body included (default 30,000). */
  timeoutMs?: number | undefined;
  /** Time limit of a whole call, every attempt and every backoff wait included, in ms (default 120,000). */
  deadlineMs?: number | undefined;
  /** Makes the Idempotency-Key of each mutation (default: a random UUID v4). */
  idempotencyKey?: (() => string) | undefined;
  /** How answers are checked against the models: `warn` (default), `strict` or `off`. */
  validation?: ValidationMode | undefined;
  /** Allows a `sk_live_` key in a browser, where any visitor can read it. Off by default. */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * Every backoff wait between attempts goes through it (default: real timers). Resolve after
   * `ms` of your clock, and reject when `signal` aborts. Wire it to a virtual clock (with `now`)
   * so that tests of retries take no wall time:
   *
   * ```ts
   * new PixUsdt({ apiKey, fetch, now: () => clock.now(), sleep: async (ms) => clock.advance(ms) });
   * ```
   */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  /** The clock (ms since the epoch) for deadlines, elapsed times and Retry-After dates; injectable for tests. */
  now?: (() => number) | undefined;
}

/** Options after defaults and validation. */
export interface NormalizedOptions {
  apiKey: string;
  environment: 'test' | 'live';
  baseUrl: string;
  fetch: FetchLike | undefined;
  maxRetries: number;
  timeoutMs: number;
  deadlineMs: number;
  idempotencyKey: (() => string) | undefined;
  validation: ValidationMode;
  dangerouslyAllowBrowser: boolean;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  now: () => number;
}

/** The defaults, in one place. */
export const DEFAULT_OPTIONS = {
  /** Retries after the first attempt, at most. */
  maxRetries: 5,
  /** Time limit of one attempt, in ms. */
  timeoutMs: 30_000,
  /** Time limit of the whole call (retries and waits included), in ms. */
  deadlineMs: 120_000,
  /** Answers that do not match their model are returned as received and reported by a `warning` event. */
  validation: 'warn',
  /** A live key is refused in a browser. */
  dangerouslyAllowBrowser: false,
  /** Backoff waits use real timers (abortable by the call's signal). */
  sleep: realSleep,
  /** The clock of timeouts and deadlines: `Date.now`. */
  now: (): number => Date.now(),
} as const satisfies Partial<NormalizedOptions>;

// Written so that the redaction of errors (`sk_test_` + anything) leaves it readable.
const KEY_SHAPE = 'a key is "sk_test_" (sandbox) or "sk_live_" and 32 letters or digits';
const VALIDATION_MODES: readonly string[] = ['strict', 'warn', 'off'];

function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window !== 'undefined' && typeof g.document !== 'undefined';
}

const LOOPBACK_V4 = /^(?:::ffff:)?127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Whether a host is the loopback interface: `localhost`, 127.0.0.0/8, `::1`, and 127.0.0.0/8 as
 * an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, the form of a socket's remote address); any
 * case, IPv6 with or without brackets, never a port. The one rule of the client (plain http to a
 * local sandbox server) and the server (`serve --host`, the inspector's gate, CORS, webhook
 * destinations).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return h === 'localhost' || h === '::1' || LOOPBACK_V4.test(h);
}

function checkBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidOptionsError(`Invalid baseUrl ${JSON.stringify(raw)}: not an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new InvalidOptionsError(
      `Invalid baseUrl ${JSON.stringify(raw)}: the API is served over https only (plain http is allowed for loopback hosts)`,
    );
  }
  if (url.search !== '' || url.hash !== '') throw new InvalidOptionsError('Invalid baseUrl: it must not carry a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

function checkCount(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min) throw new InvalidOptionsError(`Invalid ${name}: expected an integer >= ${min}`);
  return value;
}

/** Applies the defaults and validates. Throws {@link InvalidOptionsError}; never echoes the key. */
export function normalizeOptions(input: ClientOptions): NormalizedOptions {
  if (typeof input !== 'object' || input === null) throw new InvalidOptionsError('Missing options: new PixUsdt({ apiKey })');
  const apiKey: unknown = input.apiKey;
  if (typeof apiKey !== 'string' || apiKey === '') {
    throw new InvalidOptionsError(`Missing apiKey: pass new PixUsdt({ apiKey }), where ${KEY_SHAPE}.`);
  }
  const match = API_KEY_FORMAT.exec(apiKey);
  if (match === null) throw new InvalidOptionsError(`Malformed apiKey: ${KEY_SHAPE} (the key is not shown).`);
  const environment = match[1] === 'live' ? 'live' : 'test';
  const o = { ...DEFAULT_OPTIONS, ...stripUndefined(input) };
  if (environment === 'live' && isBrowser() && o.dangerouslyAllowBrowser !== true) {
    throw new InvalidOptionsError(
      'A live key (sk_live_) in a browser is readable by every visitor. Call the API from your server, or pass dangerouslyAllowBrowser: true.',
    );
  }
  if (!VALIDATION_MODES.includes(o.validation)) throw new InvalidOptionsError('Invalid validation: expected "strict", "warn" or "off"');
  return {
    apiKey,
    environment,
    baseUrl: checkBaseUrl(input.baseUrl ?? (environment === 'live' ? PRODUCTION_BASE_URL : SANDBOX_BASE_URL)),
    fetch: input.fetch,
    maxRetries: checkCount('maxRetries', o.maxRetries, 0),
    timeoutMs: checkCount('timeoutMs', o.timeoutMs, 1),
    deadlineMs: checkCount('deadlineMs', o.deadlineMs, 1),
    idempotencyKey: input.idempotencyKey,
    validation: o.validation,
    dangerouslyAllowBrowser: o.dangerouslyAllowBrowser,
    sleep: o.sleep,
    now: o.now,
  };
}

type Defined<T> = { [K in keyof T]?: Exclude<T[K], undefined> };

// `{ timeoutMs: undefined }` means "the default", as if the field were absent.
function stripUndefined<T extends object>(value: T): Defined<T> {
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) if (field !== undefined) out[key] = field;
  return out as Defined<T>;
}
