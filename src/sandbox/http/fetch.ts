/**
 * `sandbox.fetch` without the cost of web streams. On Node 20 a `Request` with a body, read back
 * with `text()`, takes about 50 us, and a `Response` read with `text()` about 30 us: together
 * more than the sandbox's own work for a call, because both go through transferable
 * `ReadableStream`s. `fetch(url, init)` with a string body and plain headers (what the client
 * sends) is read here directly, with the checks `new Request` would make; anything else goes
 * through a real `Request`. Answers are `SandboxResponse`s: real `Response`s whose body is the
 * string the sandbox already holds, turned into a stream only if the caller asks for one.
 * @module
 */
import { type Answer, HEADER_NAME, HEADER_VALUE, type HeaderReader, type Incoming, MapHeaders, addHeader, targetParts } from './call.js';

/**
 * The key of the exchange `sandbox.fetch` carries for our own client (src/client/transport.ts
 * reads the same global symbol: the client never imports the sandbox), as `{ of, exchange }`:
 * `of` is the fetch that carries it (a spy or wrapper that copies the property is not it, and is
 * called as a `fetch`); `exchange`, called as `fetch` is, with the same request, answers an
 * {@link InProcessAnswer} instead of a `Response`.
 */
export const IN_PROCESS = Symbol.for('pix-usdt.in-process');

/** What the exchange answers: the sandbox's answer as it holds it, and the `Response` only on demand. */
export interface InProcessAnswer {
  readonly status: number;
  /** The body as `response.text()` gives it ('' when there is none). */
  readonly text: string;
  /** A header as `response.headers.get(name)` gives it. */
  header(name: string): string | null;
  /** The `Response` a `fetch` would have answered, its body already read; the same one on every call. */
  response(): Response;
}

class Exchanged implements InProcessAnswer {
  readonly status: number;
  readonly text: string;
  readonly #answer: Answer;
  #response: Response | undefined;

  constructor(answer: Answer) {
    this.status = answer.status;
    this.text = answer.body ?? '';
    this.#answer = answer;
    // Headers a `Headers` would change (or refuse: then this throws, and the exchange rejects as
    // `fetch` does) are read through the `Response`.
    if (!plainRecord(answer.headers)) this.response();
  }

  header(name: string): string | null {
    const headers = this.#answer.headers;
    if (this.#response === undefined && typeof name === 'string' && HEADER_NAME.test(name)) {
      const key = name.toLowerCase();
      return Object.hasOwn(headers, key) ? (headers[key] as string) : null;
    }
    return this.response().headers.get(name);
  }

  response(): Response {
    const { body, status, headers } = this.#answer;
    return (this.#response ??= SandboxResponse.read(body, { status, headers }));
  }
}

/** The exchange's answer to our own client. */
export function inProcessAnswer(answer: Answer): InProcessAnswer {
  return new Exchanged(answer);
}

// Methods `new Request` keeps as they are; anything else takes the slow path, which normalizes or throws.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const INIT_KEYS = new Set(['method', 'headers', 'body', 'signal']);

function plainHeaders(headers: object): Map<string, string> | null {
  const map = new Map<string, string>();
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value: unknown = (headers as Record<string, unknown>)[name];
    if (typeof value !== 'string' || !addHeader(map, name, value)) return null;
  }
  return map;
}

// Origins (`https://host:port`) a URL parser takes as they are, with no credentials: a client
// sends every request to one, which is parsed once (a few are remembered).
const ORIGINS = new Map<string, boolean>();

function plainOrigin(origin: string): boolean {
  let known = ORIGINS.get(origin);
  if (known === undefined) {
    try {
      const url = new URL(`${origin}/`);
      known = (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '' && url.pathname === '/' && url.search === '';
    } catch {
      known = false;
    }
    if (ORIGINS.size < 64) ORIGINS.set(origin, known);
  }
  return known;
}

// The path and query of an absolute URL string with a plain origin and a plain target, or `null`.
function hrefParts(href: string): { path: string; search: string } | null {
  const scheme = href.indexOf('://');
  if (scheme < 4 || scheme > 5) return null;
  const slash = href.indexOf('/', scheme + 3);
  if (slash < 0 || !plainOrigin(href.slice(0, slash))) return null;
  return targetParts(href, slash);
}

/**
 * The request of `fetch(input, init)` read without building a `Request`, or `null` when the
 * call is anything but a string or URL with plain options (the caller then builds a `Request`,
 * which also throws whatever `fetch` would throw). A URL string in the form a parser gives
 * (what a client sends) is not parsed again (call.ts, `targetParts`).
 */
export function fastIncoming(input: RequestInfo | URL, init: RequestInit | undefined, origin: string): Incoming | null {
  let href: string;
  let parts: { path: string; search: string } | null = null;
  if (typeof input === 'string') {
    const relative = input.startsWith('/');
    href = relative ? origin + input : input;
    parts = relative ? targetParts(input) : hrefParts(input);
  } else if (input instanceof URL) {
    href = input.href;
    if (input.username !== '' || input.password !== '') return null;
    parts = { path: input.pathname, search: input.search };
  } else return null;
  let method = 'GET';
  let body: string | null = null;
  let headers: HeaderReader = new MapHeaders(new Map());
  if (init !== undefined) {
    if (init === null || typeof init !== 'object') return null;
    const proto: unknown = Object.getPrototypeOf(init);
    if (proto !== Object.prototype && proto !== null) return null;
    for (const key in init) if (!INIT_KEYS.has(key) && (init as Record<string, unknown>)[key] !== undefined) return null;
    if (init.method !== undefined) {
      if (typeof init.method !== 'string' || !METHODS.has(init.method)) return null;
      method = init.method;
    }
    if (init.body !== undefined && init.body !== null) {
      if (typeof init.body !== 'string' || method === 'GET' || method === 'HEAD') return null;
      body = init.body;
    }
    if (init.headers instanceof Headers) headers = init.headers;
    else if (init.headers !== undefined) {
      if (typeof init.headers !== 'object' || init.headers === null || Array.isArray(init.headers)) return null;
      const map = plainHeaders(init.headers);
      if (map === null) return null;
      if (body !== null && !map.has('content-type')) map.set('content-type', 'text/plain;charset=UTF-8');
      headers = new MapHeaders(map);
    }
  }
  if (parts === null) {
    let url: URL;
    try {
      url = new URL(href);
    } catch {
      return null;
    }
    if (url.username !== '' || url.password !== '') return null;
    parts = { path: url.pathname, search: url.search };
  }
  const text = body ?? '';
  return {
    method,
    path: parts.path,
    search: parts.search,
    headers,
    text: () => Promise.resolve(text),
    body: text,
    toRequest: () => new Request(href, { method, headers: headers instanceof MapHeaders ? [...headers.map] : (headers as Headers), body }),
  };
}

const unusable = (): TypeError => new TypeError('Body is unusable: Body has already been read');

// Names a `Headers` keeps as given (lower case) and values it keeps as given (no edge whitespace).
function plainRecord(record: Record<string, string>): boolean {
  for (const name in record) {
    const value = record[name] as string;
    if (!HEADER_NAME.test(name) || name.toLowerCase() !== name || !HEADER_VALUE.test(value)) return false;
    if (value.length > 0 && (value.charCodeAt(0) <= 32 || value.charCodeAt(value.length - 1) <= 32)) return false;
  }
  return true;
}

/**
 * The headers of a {@link SandboxResponse}: a real `Headers` (it passes `instanceof Headers`),
 * whose `get` and `has` read the answer's own record (names in lower case, values as `Headers`
 * keeps them: {@link plainRecord}) until anything else is asked of it, which fills it first.
 * Building a filled `Headers` is most of a `Response`'s cost on Node 20 (about 5 of 7.6 us).
 */
class AnswerHeaders extends Headers {
  #record: Record<string, string> | null;

  constructor(record: Record<string, string>) {
    super();
    this.#record = record;
  }

  #filled(): this {
    const record = this.#record;
    if (record !== null) {
      this.#record = null;
      for (const name in record) super.append(name, record[name] as string);
    }
    return this;
  }

  override get(name: string): string | null {
    const record = this.#record;
    // Anything `Headers` would refuse (a name that is not a token) is refused by it.
    if (record === null || typeof name !== 'string' || !HEADER_NAME.test(name)) return this.#filled().#get(name);
    const key = name.toLowerCase();
    return Object.hasOwn(record, key) ? (record[key] as string) : null;
  }

  #get(name: string): string | null {
    return super.get(name);
  }

  override has(name: string): boolean {
    const record = this.#record;
    if (record === null || typeof name !== 'string' || !HEADER_NAME.test(name)) return this.#filled().#has(name);
    return Object.hasOwn(record, name.toLowerCase());
  }

  #has(name: string): boolean {
    return super.has(name);
  }

  override append(name: string, value: string): void {
    this.#filled();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.#filled();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.#filled();
    super.delete(name);
  }

  override getSetCookie(): string[] {
    this.#filled();
    return super.getSetCookie();
  }

  override keys(): ReturnType<Headers['keys']> {
    this.#filled();
    return super.keys();
  }

  override values(): ReturnType<Headers['values']> {
    this.#filled();
    return super.values();
  }

  override entries(): ReturnType<Headers['entries']> {
    this.#filled();
    return super.entries();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.#filled();
    super.forEach(callback, thisArg);
  }

  override [Symbol.iterator](): ReturnType<Headers['entries']> {
    this.#filled();
    return super.entries();
  }

  // util.inspect (console.log) reads the filled list.
  [Symbol.for('nodejs.util.inspect.custom')](...args: unknown[]): unknown {
    this.#filled();
    const inspect = (Headers.prototype as unknown as Record<symbol, ((...a: unknown[]) => unknown) | undefined>)[Symbol.for('nodejs.util.inspect.custom')];
    return inspect === undefined ? this : inspect.apply(this, args);
  }
}

/**
 * A real `Response` (it passes `instanceof Response`) whose body is a string the sandbox holds.
 * `text()` and `json()` read the string; the first use of anything else (`body`, `arrayBuffer()`,
 * `blob()`, `formData()`, `bytes()`, `clone()` after a read) turns it into an ordinary `Response`
 * with the same body, which then serves every call. A body reads once, as on any `Response`.
 * Its headers are an {@link AnswerHeaders} (filled on first need) when the answer's are plain.
 */
export class SandboxResponse extends Response {
  readonly #text: string | null;
  readonly #init: { status: number; headers: Record<string, string> };
  #read = false;
  #real: Response | undefined;
  #headers: Headers | undefined;

  constructor(text: string | null, init: { status: number; headers: Record<string, string> }) {
    const lazy = plainRecord(init.headers);
    super(null, lazy ? { status: init.status } : init);
    if (lazy) this.#headers = new AnswerHeaders(init.headers);
    this.#text = text;
    this.#init = init;
  }

  /** An answer whose body was read already (`bodyUsed`), as the client leaves a response it has read. */
  static read(text: string | null, init: { status: number; headers: Record<string, string> }): SandboxResponse {
    const response = new SandboxResponse(text, init);
    response.#read = true;
    return response;
  }

  override get headers(): Headers {
    return this.#headers ?? super.headers;
  }

  // The ordinary Response this one stands for; a body already read is read there too.
  #materialize(): Response {
    if (this.#real === undefined) {
      this.#real = new Response(this.#text, this.#init);
      if (this.#read) void this.#real.arrayBuffer().catch(() => undefined);
    }
    return this.#real;
  }

  override get body(): Response['body'] {
    return this.#text === null ? null : this.#materialize().body;
  }

  override get bodyUsed(): boolean {
    return this.#real === undefined ? this.#read : this.#real.bodyUsed;
  }

  override text(): Promise<string> {
    if (this.#real !== undefined) return this.#real.text();
    if (this.#read) return Promise.reject(unusable());
    this.#read = true;
    return Promise.resolve(this.#text ?? '');
  }

  override json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    return this.#materialize().arrayBuffer();
  }

  override blob(): Promise<Blob> {
    return this.#materialize().blob();
  }

  override formData(): Promise<FormData> {
    return this.#materialize().formData();
  }

  override bytes(): ReturnType<Response['bytes']> {
    const real = this.#materialize();
    // Node 20's Response has no bytes() yet.
    return typeof real.bytes === 'function' ? real.bytes() : real.arrayBuffer().then((buffer) => new Uint8Array(buffer));
  }

  override clone(): Response {
    if (this.#real !== undefined) return this.#real.clone();
    if (this.#read) throw new TypeError('Response.clone: Body has already been consumed.');
    return new SandboxResponse(this.#text, this.#init);
  }
}
