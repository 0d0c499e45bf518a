/**
 * Record and replay: `recordingFetch` keeps every exchange in a cassette (redacted on write),
 * `replayFetch` answers from a cassette offline, `diffCassette` replays its requests against
 * another deployment (a sandbox) and reports where the answers differ.
 * @module
 */
import type { FetchLike } from '../index.js';
import { cpfFrom } from './check-digits.js';
import { diffAnswers, kindOf, type Difference } from './compare.js';
import { CPF_TOKEN, KEY_TOKEN, createRedactor, redactCpfs, redactKeys, type RedactOptions } from './redact.js';

/** One request and its answer, as stored. */
export interface Exchange {
  /** The request: method, origin, path with query, headers and body text (redacted). */
  request: { method: string; origin: string; path: string; headers: Record<string, string>; body: string };
  /** The answer: status, headers and body text (redacted). */
  response: { status: number; statusText: string; headers: Record<string, string>; body: string };
  /** When the request was sent (ISO 8601). */
  startedAt: string;
  /** Time to the whole answer, in ms. */
  durationMs: number;
  /** Start and end in ms since the recording began (high resolution): overlapping exchanges ran concurrently. */
  startMs: number;
  /** See `startMs`. */
  endMs: number;
}

/** A recorded session: JSON-serializable. */
export interface Cassette {
  /** Format version. */
  version: 1;
  /** Every exchange, in the order the answers completed. */
  exchanges: Exchange[];
}

/** Options of {@link recordingFetch}. */
export interface RecordingOptions {
  /** What to redact (secrets are always redacted; CPFs by default). */
  redact?: RedactOptions;
  /** Called with each exchange once stored (stream it to a file, a log...). */
  sink?: (exchange: Exchange) => void;
  /** The clock in ms (injectable for tests). */
  now?: () => number;
  /** A monotonic high-resolution clock in ms (default `performance.now`). */
  monotonic?: () => number;
}

/** A `fetch` that records: call it like `fetch`, read `cassette`, save `serialize()`. */
export interface RecordingFetch extends FetchLike {
  /** The cassette being written. */
  readonly cassette: Cassette;
  /** The cassette as JSON text (write it to a file with the API of your runtime). */
  serialize(): string;
}

/**
 * Wraps `fetch` so that every exchange (request, answer, timing) is written to a cassette,
 * with API keys, webhook secrets and CPF numbers redacted before they are stored.
 * The answers reach the caller unchanged.
 *
 * @param fetch - The fetch to record (the global one, a client's, `sandbox.fetch`).
 * @param options - Redaction, a sink for each exchange, the clock.
 */
export function recordingFetch(fetch: FetchLike, options: RecordingOptions = {}): RecordingFetch {
  const cassette: Cassette = { version: 1, exchanges: [] };
  const redactor = createRedactor(options.redact);
  const now = options.now ?? Date.now;
  const monotonic = options.monotonic ?? (() => performance.now());
  const origin = monotonic();
  const record = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const body = request.body === null ? '' : await request.clone().text();
    const started = now();
    const startMs = monotonic() - origin;
    const response = await fetch(request);
    const text = await response.clone().text();
    const endMs = monotonic() - origin;
    const url = new URL(request.url);
    const exchange: Exchange = {
      request: { method: request.method, origin: url.origin, path: `${url.pathname}${url.search}`, headers: redactor.headers(request.headers), body: redactor.text(body) },
      response: { status: response.status, statusText: response.statusText, headers: redactor.headers(response.headers), body: redactor.text(text) },
      startedAt: new Date(started).toISOString(),
      durationMs: Math.round((endMs - startMs) * 1000) / 1000,
      startMs,
      endMs,
    };
    cassette.exchanges.push(exchange);
    options.sink?.(exchange);
    return response;
  };
  return Object.assign(record, { cassette, serialize: () => `${JSON.stringify(cassette, null, 2)}\n` });
}

/** Thrown (the fetch rejects with it) on a request the cassette does not hold next. */
export class UnrecordedRequestError extends Error {
  override readonly name = 'UnrecordedRequestError';
}

/** A `fetch` that answers from a cassette. */
export interface ReplayFetch extends FetchLike {
  /** Exchanges not yet answered. */
  remaining(): number;
  /** Throws {@link UnrecordedRequestError} unless every exchange was answered. */
  assertDone(): void;
}

function normalize(text: string, seen: Map<string, number>): string {
  // The caller sends real values where the cassette has tokens: redact them the same way, and
  // compare CPF tokens by position only (the numbering may have started on another request).
  return redactCpfs(redactKeys(text, new Map()), seen).replace(CPF_TOKEN, '[cpf]').replace(KEY_TOKEN, 'sk_$1_[redacted]');
}

/** Whether two exchanges ran at the same time (the second started before the first ended). */
function overlaps(a: Exchange, b: Exchange): boolean {
  return typeof a.startMs === 'number' && typeof b.startMs === 'number' && a.startMs < b.endMs && b.startMs < a.endMs;
}

/**
 * The stand-in of a redacted API key in a replayed answer (`sk_test_[redacted:2]` ->
 * `sk_test_Redacted000...0002`): the form of a key, so that a caller that uses a key it was
 * answered (a tenant made for the run) goes on; a replay never checks keys.
 */
function standInKey(_token: string, env: string, n: string): string {
  return `sk_${env}_Redacted${n.padStart(24, '0')}`;
}

/**
 * A `fetch` that answers each request with the next exchange of the cassette, offline, byte
 * for byte, but for redacted API keys, answered as stand-ins of a key's form. A request must
 * match the next exchange on method, path (with query) and body (after the same redaction);
 * anything else rejects with {@link UnrecordedRequestError}.
 *
 * @param cassette - A cassette object or its JSON text.
 */
export function replayFetch(cassette: Cassette | string): ReplayFetch {
  const tape = typeof cassette === 'string' ? (JSON.parse(cassette) as Cassette) : cassette;
  if (tape?.version !== 1 || !Array.isArray(tape.exchanges)) throw new TypeError('Not a cassette: expected { version: 1, exchanges: [...] }.');
  let next = 0;
  const used = new Set<number>();
  const seen = new Map<string, number>();
  const replay = async (input: Request | URL | string, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const path = `${url.pathname}${url.search}`;
    const body = request.body === null ? '' : await request.text();
    const expected = tape.exchanges[next];
    const describe = `${request.method} ${path}${body === '' ? '' : ` ${normalize(body, seen).slice(0, 200)}`}`;
    if (expected === undefined) throw new UnrecordedRequestError(`Unrecorded request ${describe}: the cassette's ${tape.exchanges.length} exchanges are all used.`);
    const matches = (e: Exchange): boolean => e.request.method === request.method && e.request.path === path && normalize(e.request.body, new Map()) === normalize(body, seen);
    // Exchanges that ran concurrently were stored in the order they completed: any of them may come first.
    const siblings = tape.exchanges.map((e, i) => ({ e, i })).filter(({ e, i }) => i > next && !used.has(i) && overlaps(e, expected));
    const chosen = [{ e: expected, i: next }, ...siblings].find(({ e, i }) => !used.has(i) && matches(e));
    if (chosen === undefined) {
      const want = expected.request;
      const problems: string[] = [];
      if (want.method !== request.method) problems.push(`method ${request.method}, recorded ${want.method}`);
      if (want.path !== path) problems.push(`path ${path}, recorded ${want.path}`);
      if (normalize(want.body, new Map()) !== normalize(body, seen)) problems.push(`body ${normalize(body, seen).slice(0, 200)}, recorded ${normalize(want.body, new Map()).slice(0, 200)}`);
      throw new UnrecordedRequestError(`Unrecorded request ${request.method} ${path} (exchange ${next + 1} of ${tape.exchanges.length}): ${problems.join('; ')}.`);
    }
    used.add(chosen.i);
    while (used.has(next)) next++;
    const { status, statusText, headers, body: answer } = chosen.e.response;
    const empty = status === 204 || status === 205 || status === 304;
    return new Response(empty ? null : answer.replace(KEY_TOKEN, standInKey), { status, statusText, headers });
  };
  return Object.assign(replay, {
    remaining: () => tape.exchanges.length - used.size,
    assertDone() {
      if (used.size < tape.exchanges.length) {
        const e = tape.exchanges[next] as Exchange;
        throw new UnrecordedRequestError(`${tape.exchanges.length - next} recorded exchanges were not replayed; next: ${e.request.method} ${e.request.path}.`);
      }
    },
  });
}

/** Where one replayed request's answer differs from the recorded one. */
export interface ExchangeDiff {
  /** 1-based position in the cassette. */
  index: number;
  /** Method and recorded path. */
  request: string;
  /** Every difference (empty when the answers agree). */
  differences: Difference[];
}

/** The result of {@link diffCassette}. */
export interface CassetteDiff {
  /** `true` when every answer agrees. */
  ok: boolean;
  /** One entry per exchange. */
  exchanges: ExchangeDiff[];
}

/** Options of {@link diffCassette}. */
export interface DiffCassetteOptions {
  /** The key to send (the cassette's is redacted). Default: the target's `apiKey`. */
  apiKey?: string;
  /** Base URL of the requests (default: each exchange's recorded origin). */
  baseUrl?: string;
}

const KEY_VALUE = /^sk_(test|live)_\[redacted:(\d+)\]$/;

/** Learns recorded id -> new id (and recorded key token -> new key) from two answers, path by path. */
function learnIds(recorded: unknown, observed: unknown, ids: Map<string, string>): void {
  if (typeof recorded === 'string' && typeof observed === 'string') {
    if (kindOf(recorded) === 'uuid' && kindOf(observed) === 'uuid' && recorded !== observed && !ids.has(recorded)) ids.set(recorded, observed);
    if (KEY_VALUE.test(recorded) && /^sk_(test|live)_/.test(observed) && !ids.has(recorded)) ids.set(recorded, observed);
    return;
  }
  if (Array.isArray(recorded) && Array.isArray(observed)) {
    recorded.forEach((r, i) => learnIds(r, observed[i], ids));
    return;
  }
  if (kindOf(recorded) === 'object' && kindOf(observed) === 'object') {
    const o = observed as Record<string, unknown>;
    for (const [k, v] of Object.entries(recorded as Record<string, unknown>)) {
      const mine = o[k];
      // Opaque cursors encode the recorded deployment's state: use the target's own.
      if (k === 'next_cursor' && typeof v === 'string' && typeof mine === 'string' && v !== mine) {
        ids.set(v, mine);
        ids.set(encodeURIComponent(v), encodeURIComponent(mine));
      } else learnIds(v, mine, ids);
    }
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function randomToken(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return Array.from({ length }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join('');
}

/** The key token the cassette's requests use most, of those no answer gave first: the recording caller's own key. */
function callerKeyToken(tape: Cassette): string | undefined {
  const counts = new Map<string, number>();
  // A key an answer gave first (a tenant made for the run, a rotation) is learned from the target's answer, not the caller's.
  const answered = new Set<string>();
  for (const e of tape.exchanges) {
    const match = /sk_(?:test|live)_\[redacted:\d+\]/.exec(e.request.headers['authorization'] ?? '');
    if (match !== null && !answered.has(match[0])) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1);
    for (const token of e.response.body.match(KEY_TOKEN) ?? []) answered.add(token);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** Exchanges in start order, grouped where they ran concurrently. */
function concurrentGroups(tape: Cassette): Array<Array<{ exchange: Exchange; index: number }>> {
  const ordered = tape.exchanges.map((exchange, index) => ({ exchange, index }));
  if (ordered.every(({ exchange }) => typeof exchange.startMs === 'number')) ordered.sort((a, b) => a.exchange.startMs - b.exchange.startMs);
  const groups: Array<Array<{ exchange: Exchange; index: number }>> = [];
  for (const item of ordered) {
    const last = groups.at(-1);
    if (last !== undefined && last.some(({ exchange }) => overlaps(exchange, item.exchange))) last.push(item);
    else groups.push([item]);
  }
  return groups;
}

/**
 * Replays the recorded requests, in order, against another deployment (typically
 * `createSandbox()`, or its `fetch`) and compares each answer with the recorded one under the
 * conformance rules: statuses and codes by value, ids and timestamps by type, field sets and
 * types everywhere. Ids the target assigns are mapped onto later requests, CPF tokens become
 * fresh valid CPFs (the same token, the same CPF), the caller's key (the key token most
 * requests carry) becomes `apiKey`, any other key a fresh unknown key of the same environment,
 * and requests that ran concurrently are sent concurrently again.
 *
 * @param cassette - A cassette object or its JSON text.
 * @param target - A fetch, or an object with `fetch` and `apiKey` (a sandbox).
 * @param options - The key and base URL to use.
 */
export async function diffCassette(cassette: Cassette | string, target: FetchLike | { fetch: FetchLike; apiKey: string }, options: DiffCassetteOptions = {}): Promise<CassetteDiff> {
  const tape = typeof cassette === 'string' ? (JSON.parse(cassette) as Cassette) : cassette;
  const fetch = typeof target === 'function' ? target : target.fetch;
  const apiKey = options.apiKey ?? (typeof target === 'function' ? undefined : target.apiKey);
  if (apiKey === undefined) throw new TypeError('diffCassette: give options.apiKey (the cassette holds none).');
  const ids = new Map<string, string>();
  const caller = callerKeyToken(tape);
  if (caller !== undefined) ids.set(caller, apiKey);
  const cpfs = new Map<string, string>();
  const substitute = (text: string): string => {
    let out = text;
    for (const [from, to] of ids) out = out.split(from).join(to);
    out = out.replace(KEY_TOKEN, (token: string, env: string) => {
      const fresh = `sk_${env}_${randomToken(32)}`;
      ids.set(token, fresh);
      return fresh;
    });
    return out.replace(CPF_TOKEN, (_m, n: string) => {
      let cpf = cpfs.get(n);
      if (cpf === undefined) {
        cpf = cpfFrom(String(300_000_000 + Number(n) * 104_729 + Math.floor(Math.random() * 1000) * 7).slice(-9));
        cpfs.set(n, cpf);
      }
      return cpf;
    });
  };
  const send = async (exchange: Exchange): Promise<{ status: number; body: string }> => {
    const { method, origin, path, headers, body } = exchange.request;
    const sendHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) sendHeaders[name] = substitute(value);
    const url = `${(options.baseUrl ?? origin).replace(/\/+$/, '')}${substitute(path)}`;
    const response = await fetch(url, { method, headers: sendHeaders, ...(body === '' ? {} : { body: substitute(body) }) });
    return { status: response.status, body: await response.text() };
  };
  const out: ExchangeDiff[] = [];
  for (const group of concurrentGroups(tape)) {
    const answers = await Promise.all(group.map(({ exchange }) => send(exchange)));
    // Concurrent identical requests may get their answers in either order: pair each recorded
    // answer with the closest unpaired answer to an identical request.
    const free = new Set(answers.keys());
    for (const { exchange, index } of group) {
      const same = group.map((g, k) => ({ g, k })).filter(({ g, k }) => free.has(k) && g.exchange.request.method === exchange.request.method && g.exchange.request.path === exchange.request.path && g.exchange.request.body === exchange.request.body);
      const scored = same.map(({ k }) => ({ k, differences: diffAnswers(exchange.response, answers[k] as { status: number; body: string }) })).sort((a, b) => a.differences.length - b.differences.length);
      const best = scored[0] as { k: number; differences: Difference[] };
      free.delete(best.k);
      learnIds(parse(exchange.response.body), parse((answers[best.k] as { body: string }).body), ids);
      out.push({ index: index + 1, request: `${exchange.request.method} ${exchange.request.path}`, differences: best.differences });
    }
  }
  out.sort((a, b) => a.index - b.index);
  return { ok: out.every((e) => e.differences.length === 0), exchanges: out };
}
