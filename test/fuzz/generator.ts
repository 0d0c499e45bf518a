/**
 * A seeded generator of malformed requests for the sandbox's HTTP surface. Every request it
 * makes carries at least one defect that the platform must refuse with a 4xx, so a 2xx answer
 * is a finding too (a defect the sandbox let through, or a state change):
 *
 * - `auth`: missing, malformed, unknown, wrong-environment or oddly spelled API keys, on any path;
 * - `route`: unknown paths and path tricks (`..`, `%2e%2e`, `//`, `%2F`, overlong, unicode,
 *   control characters) with a valid key, as long as the URL does not resolve to a real route;
 * - `method`: a real path with a method it does not have;
 * - `capability`: a real route with a key that has no capabilities;
 * - `body`: a real mutation with a body that cannot pass (bad JSON, non-objects, unknown keys and
 *   wrong types, deep nesting, over 1 MB), or without its required Idempotency-Key, or with an
 *   overlong one;
 * - `id`: a real route with ids that do not exist (invalid formats, unicode, another tenant's);
 * - `query`: a real listing with invalid `limit`, `cursor` or filters.
 *
 * Plain PRNG (mulberry32), not fast-check: 100,000 cases must be cheap to make.
 */
import type { RouteDef } from '../../src/sandbox/routes.js';

export type Kind = 'auth' | 'route' | 'method' | 'capability' | 'body' | 'id' | 'query';

export interface FuzzCase {
  kind: Kind;
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: string;
}

export interface Keys {
  /** A valid key of the tenant under test (all capabilities). */
  valid: string;
  /** A valid key of a tenant with no capabilities. */
  powerless: string;
  /** Ids that exist in another tenant (invisible to `valid`'s tenant). */
  foreignIds: string[];
  /** Ids that exist in the tenant under test: only ever sent with a defect that precedes the lookup. */
  ownIds: string[];
}

export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ORIGIN = 'https://sandbox.pix-usdt.local';
const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;
// Request refuses CONNECT, TRACE and TRACK outright; lowercase standard names are normalized.
const ODD_METHODS = ['PUT', 'PROPFIND', 'FOO', 'CONNECTX', 'get', 'post'] as const;

const UNICODE = ['é', 'ção', '𝔘𝔫𝔦', '🙂', '\u202e', '\u0000', '\ufeff', '\ud800', '日本', 'ℌ', 'İ', 'ß', '\u200b'];
const JUNK_IDS = [
  '',
  'x',
  '0',
  '-1',
  'null',
  'undefined',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d',
  '6F1C0A34-5D8E-4B7A-9C1D-2E3F4A5B6C7D',
  '6f1c0a345d8e4b7a9c1d2e3f4a5b6c7d',
  '{id}',
  ':id',
  '%00',
  '%2e%2e',
  '..',
  '.',
  '%2F',
  "' OR 1=1 --",
  '<script>alert(1)</script>',
  '__proto__',
  'constructor',
  'toString',
  '$%7Bjndi:ldap://x%7D',
];
const BAD_KEYS: Array<string | null> = [
  null,
  '',
  'Bearer',
  'Bearer ',
  'Bearer  sk_test_',
  'bearer {valid}',
  'Basic dXNlcjpwYXNz',
  'Bearer sk_test_short',
  'Bearer sk_live_{tail}',
  'Bearer sk_test_{tail}x',
  'Bearer sk_test_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'Bearer {valid} ',
  'Bearer  {valid}',
  'Bearer {valid}\t',
  'Token {valid}',
  'Bearer sk_prod_{tail}',
  'Bearer {valid},{valid}',
  'Bearer sk_test_ÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀÀ',
];
const WRONG_VALUES: unknown[] = [1.5, -1, 0, 1e308, true, false, null, [], {}, [1, 2], '', ' ', 'NaN', '1e3', '0x10', '١٢٣', '5,40', '-0.00', '9'.repeat(400), { $gt: '' }];
const FIELDS = ['user_id', 'source_amount', 'target_amount', 'amount', 'name', 'status', 'seconds', 'settle', 'capabilities', 'url', 'event_types', 'reason', 'external_id', 'document_number', 'pix_key', 'metadata', 'email'];

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** encodeURIComponent that tolerates lone surrogates (they become U+FFFD, as a browser would send). */
function enc(value: string): string {
  return encodeURIComponent(value.replace(LONE_SURROGATE, '\ufffd'));
}

export class Generator {
  readonly #r: () => number;
  readonly #keys: Keys;
  readonly #routes: readonly RouteDef[];
  readonly #mutations: readonly RouteDef[];
  readonly #lists: readonly RouteDef[];
  readonly #real: Array<{ method: string; parts: string[] }>;
  readonly #huge: string;
  readonly #deep: string[];

  constructor(seed: number, keys: Keys, routes: readonly RouteDef[]) {
    this.#r = prng(seed);
    this.#keys = keys;
    this.#routes = routes;
    this.#mutations = routes.filter((r) => r.method !== 'GET' && r.body !== undefined);
    this.#lists = routes.filter((r) => r.method === 'GET' && r.query !== undefined);
    this.#real = routes.map((r) => ({ method: r.method, parts: r.path.split('/').filter(Boolean) }));
    this.#huge = `{"name":"${'a'.repeat(1_100_000)}"}`;
    this.#deep = [`${'['.repeat(100_000)}${']'.repeat(100_000)}`, `{"a":${'{"a":'.repeat(20_000)}1${'}'.repeat(20_001)}`, '['.repeat(200_000), `{"metadata":${'['.repeat(5_000)}${']'.repeat(5_000)}}`];
  }

  #int(n: number): number {
    return Math.floor(this.#r() * n);
  }

  #pick<T>(list: readonly T[]): T {
    return list[this.#int(list.length)] as T;
  }

  #chance(p: number): boolean {
    return this.#r() < p;
  }

  #uni(): string {
    return this.#pick(UNICODE);
  }

  /** An id that exists nowhere in the tenant under test. */
  #missingId(): string {
    const roll = this.#int(10);
    if (roll < 2) return this.#pick(this.#keys.foreignIds);
    if (roll < 3) return enc(this.#uni() + this.#pick(JUNK_IDS));
    if (roll < 4) return 'a'.repeat(1 + this.#int(5_000));
    if (roll < 5) return this.#uuid();
    return enc(this.#pick(JUNK_IDS)) || 'x';
  }

  #uuid(): string {
    const hex = (n: number): string => Array.from({ length: n }, () => this.#int(16).toString(16)).join('');
    return `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
  }

  #path(route: RouteDef, id: () => string): string {
    return route.path.replace(/:[a-z_]+/g, () => id());
  }

  /** Whether a URL resolves to a path that a real route matches (so a trick would be a real call). */
  #resolvesToRoute(url: string, method: string): boolean {
    let parts: string[];
    try {
      parts = new URL(url).pathname.split('/').filter(Boolean);
    } catch {
      return false;
    }
    return this.#real.some(
      (r) => (r.method === method || method === 'any') && r.parts.length === parts.length && r.parts.every((p, i) => p.startsWith(':') || p === parts[i]),
    );
  }

  #idempotencyHeaders(): Array<[string, string]> {
    const roll = this.#int(8);
    if (roll === 0) return [];
    if (roll === 1) return [['idempotency-key', 'k'.repeat(256 + this.#int(10_000))]];
    if (roll === 2) return [['idempotency-key', `fuzz ${this.#int(5)}`]]; // reused across bodies: reuse conflicts
    if (roll === 3) return [['idempotency-key', enc(this.#uni())]];
    return [['idempotency-key', `fuzz-${this.#int(1e9)}`]];
  }

  #oddHeaders(): Array<[string, string]> {
    const out: Array<[string, string]> = [];
    const n = this.#int(4);
    for (let i = 0; i < n; i++) {
      const roll = this.#int(9);
      if (roll === 0) out.push(['content-type', this.#pick(['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', ''])]);
      else if (roll === 1) out.push(['x-request-id', 'evil\tid']);
      else if (roll === 2) out.push(['content-length', String(this.#int(1e9))]);
      else if (roll === 3) out.push([`x-${'h'.repeat(1 + this.#int(200))}`, 'v'.repeat(this.#int(8_000))]);
      else if (roll === 4) out.push(['accept', '*/*;q=-1']);
      else if (roll === 5) out.push(['x-forwarded-for', '127.0.0.1, ::1']);
      else if (roll === 6) out.push(['transfer-encoding', 'chunked']);
      else if (roll === 7) out.push(['idempotent-replayed', 'true']);
      else out.push(['user-agent', enc(this.#uni())]);
    }
    return out;
  }

  #auth(key: string): Array<[string, string]> {
    return [['authorization', `Bearer ${key}`]];
  }

  /** A body that no strict schema accepts. */
  #badBody(): string {
    const roll = this.#int(12);
    if (roll === 0) return '{';
    if (roll === 1) return this.#pick(['null', 'true', '1', '"x"', '[]', '[{}]', '1e999', '-0']);
    if (roll === 2) return this.#pick(['{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":undefined}', '\ufeff{}x', '{"a":"\\ud800"', '{"a":01}', '{"a"}']);
    if (roll === 3 && this.#chance(0.1)) return this.#deep[this.#int(this.#deep.length)] as string;
    if (roll === 4 && this.#chance(0.02)) return this.#huge;
    if (roll === 5) return String.fromCharCode(...Array.from({ length: 1 + this.#int(64) }, () => this.#int(0xd7ff)));
    // An object with an unknown key (strict schemas refuse it) and fields of the wrong type.
    const body: Record<string, unknown> = { [`zz_${this.#uni()}_${this.#int(1000)}`]: this.#pick(WRONG_VALUES) };
    const n = this.#int(4);
    for (let i = 0; i < n; i++) body[this.#pick(FIELDS)] = this.#pick(WRONG_VALUES);
    if (this.#chance(0.1)) body['__proto__'] = { polluted: true };
    const text = JSON.stringify(body);
    return this.#chance(0.1) ? text.replace('{', '{"__proto__":{"isAdmin":true},') : text;
  }

  /** One malformed request. */
  next(): FuzzCase {
    const kinds: Kind[] = ['auth', 'route', 'method', 'capability', 'body', 'body', 'id', 'id', 'query'];
    const kind = this.#pick(kinds);
    const extra = this.#chance(0.3) ? this.#oddHeaders() : [];
    switch (kind) {
      case 'auth': {
        const route = this.#pick(this.#routes);
        const method = route.method;
        const id = this.#chance(0.5) && this.#keys.ownIds.length > 0 ? () => this.#pick(this.#keys.ownIds) : () => this.#missingId();
        const template = this.#pick(BAD_KEYS);
        const headers: Array<[string, string]> = [...extra];
        if (template !== null) {
          const value = template.replaceAll('{valid}', this.#keys.valid).replaceAll('{tail}', this.#keys.valid.slice(8));
          // Header values cannot hold control characters other than tab; trimmed ones stay valid keys.
          if (value.trim() !== `Bearer ${this.#keys.valid}`) headers.push(['authorization', value]);
        }
        return { kind, method, url: ORIGIN + this.#path(route, id), headers: [...headers, ...this.#idempotencyHeaders()], ...(method === 'GET' ? {} : { body: this.#chance(0.5) ? '{}' : this.#badBody() }) };
      }
      case 'route': {
        for (;;) {
          const url = ORIGIN + this.#trickPath();
          const method = this.#pick(METHODS);
          if (this.#resolvesToRoute(url, 'any')) continue;
          return { kind, method, url, headers: [...this.#auth(this.#keys.valid), ...extra, ...this.#idempotencyHeaders()], ...(method === 'GET' ? {} : { body: this.#badBody() }) };
        }
      }
      case 'method': {
        for (;;) {
          const route = this.#pick(this.#routes);
          const method = this.#chance(0.3) ? this.#pick(ODD_METHODS) : this.#pick(METHODS);
          const url = ORIGIN + this.#path(route, () => this.#missingId());
          if (method.toUpperCase() === route.method || this.#resolvesToRoute(url, method.toUpperCase())) continue;
          return { kind, method, url, headers: [...this.#auth(this.#keys.valid), ...extra, ...this.#idempotencyHeaders()], ...(method === 'GET' ? {} : { body: this.#badBody() }) };
        }
      }
      case 'capability': {
        const route = this.#pick(this.#routes);
        const id = this.#chance(0.5) && this.#keys.ownIds.length > 0 ? () => this.#pick(this.#keys.ownIds) : () => this.#missingId();
        const body = route.method === 'GET' ? {} : { body: this.#chance(0.5) ? '{}' : this.#badBody() };
        return { kind, method: route.method, url: ORIGIN + this.#path(route, id), headers: [...this.#auth(this.#keys.powerless), ...extra, ...this.#idempotencyHeaders()], ...body };
      }
      case 'body': {
        const route = this.#pick(this.#mutations);
        // Existing ids are fine here: the body is refused before the handler runs.
        const id = this.#chance(0.6) && this.#keys.ownIds.length > 0 ? () => this.#pick(this.#keys.ownIds) : () => this.#missingId();
        const headers = [...this.#auth(this.#keys.valid), ['content-type', 'application/json'] as [string, string], ...extra, ...this.#idempotencyHeaders()];
        return { kind, method: route.method, url: ORIGIN + this.#path(route, id), headers, body: this.#badBody() };
      }
      case 'id': {
        const withId = this.#routes.filter((r) => r.path.includes(':'));
        const route = this.#pick(withId);
        let url = ORIGIN + this.#path(route, () => this.#missingId());
        // An id of '.' or '..' is resolved away by the URL parser: that would be another route.
        while (new URL(url).pathname.split('/').filter(Boolean).length !== route.path.split('/').filter(Boolean).length) {
          url = ORIGIN + this.#path(route, () => this.#missingId());
        }
        const headers = [...this.#auth(this.#keys.valid), ...extra, ['idempotency-key', `fuzz-id-${this.#int(1e9)}`] as [string, string]];
        return { kind, method: route.method, url, headers, ...(route.method === 'GET' ? {} : { body: this.#chance(0.5) ? '{}' : this.#badBody() }) };
      }
      case 'query': {
        const route = this.#pick(this.#lists);
        const junk = [
          `limit=${this.#pick(['0', '101', '-1', 'abc', '1.5', '1e2', '', '%00', '99999999999999999999', ' 5'])}`,
          `cursor=${enc(this.#pick(['x', 'eyJ9', '..', this.#uni(), 'a'.repeat(5_000)]))}`,
          `status=${enc(this.#pick(['bogus', this.#uni(), 'COMPLETED', '']))}&limit=0`,
          `limit=1&limit=0&limit=${enc(this.#uni())}`.split('&').reverse().join('&'),
        ];
        const query = this.#pick(junk);
        return { kind, method: 'GET', url: `${ORIGIN}${route.path}?${query}`, headers: [...this.#auth(this.#keys.valid), ...extra] };
      }
    }
  }

  #trickPath(): string {
    const real = this.#pick(this.#routes).path.replace(/:[a-z_]+/g, () => this.#missingId());
    const roll = this.#int(12);
    if (roll === 0) return `/v1/users/../../${this.#pick(['etc/passwd', 'v2/users', 'admin'])}`;
    if (roll === 1) return `/v1/%2e%2e/%2e%2e/${this.#pick(['admin', 'v1x', 'secrets'])}`;
    if (roll === 2) return real.replaceAll('/', '//');
    if (roll === 3) return real.replace('/v1/', '/v1%2F');
    if (roll === 4) return `/v1/${'a/'.repeat(this.#int(3_000))}`;
    if (roll === 5) return `${real}/${enc(this.#uni())}`;
    if (roll === 6) return real.toUpperCase();
    if (roll === 7) return `/v1/users%00/x`;
    if (roll === 8) return `/${enc(this.#uni())}${real}`;
    if (roll === 9) return `${real}/extra/segments`;
    if (roll === 10) return `/v2${real.slice(3)}`;
    return `/v1/${'x'.repeat(10_000 + this.#int(50_000))}`;
  }
}
