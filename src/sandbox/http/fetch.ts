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
import { type HeaderReader, type Incoming, MapHeaders } from './call.js';

// RFC 9110 token (header names) and field values without CR, LF or NUL (what `Headers` accepts).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
// Methods `new Request` keeps as they are; anything else takes the slow path, which normalizes or throws.
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const INIT_KEYS = new Set(['method', 'headers', 'body', 'signal']);

function plainHeaders(headers: object): Map<string, string> | null {
  const map = new Map<string, string>();
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value: unknown = (headers as Record<string, unknown>)[name];
    if (typeof value !== 'string' || !TOKEN.test(name) || !FIELD_VALUE.test(value)) return null;
    const key = name.toLowerCase();
    const trimmed = value.length > 0 && (value.charCodeAt(0) <= 32 || value.charCodeAt(value.length - 1) <= 32) ? value.replace(EDGE_WHITESPACE, '') : value;
    const previous = map.get(key);
    map.set(key, previous === undefined ? trimmed : `${previous}, ${trimmed}`);
  }
  return map;
}

/**
 * The request of `fetch(input, init)` read without building a `Request`, or `null` when the
 * call is anything but a string or URL with plain options (the caller then builds a `Request`,
 * which also throws whatever `fetch` would throw).
 */
export function fastIncoming(input: RequestInfo | URL, init: RequestInit | undefined, origin: string): Incoming | null {
  let href: string;
  if (typeof input === 'string') href = input.startsWith('/') ? origin + input : input;
  else if (input instanceof URL) href = input.href;
  else return null;
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
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if (url.username !== '' || url.password !== '') return null;
  const text = body ?? '';
  return {
    method,
    url,
    headers,
    text: () => Promise.resolve(text),
    body: text,
    toRequest: () => new Request(url.href, { method, headers: headers instanceof MapHeaders ? [...headers.map] : (headers as Headers), body }),
  };
}

const unusable = (): TypeError => new TypeError('Body is unusable: Body has already been read');

/**
 * A real `Response` (it passes `instanceof Response`) whose body is a string the sandbox holds.
 * `text()` and `json()` read the string; the first use of anything else (`body`, `arrayBuffer()`,
 * `blob()`, `formData()`, `bytes()`, `clone()` after a read) turns it into an ordinary `Response`
 * with the same body, which then serves every call. A body reads once, as on any `Response`.
 */
export class SandboxResponse extends Response {
  readonly #text: string | null;
  readonly #init: ResponseInit;
  #read = false;
  #real: Response | undefined;

  constructor(text: string | null, init: ResponseInit) {
    super(null, init);
    this.#text = text;
    this.#init = init;
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
