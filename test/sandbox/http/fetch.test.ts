/**
 * `sandbox.fetch` reads `fetch(url, init)` without building a `Request` and answers with a
 * `SandboxResponse` (src/sandbox/http/fetch.ts). Both must be indistinguishable from the web objects
 * they stand for: the same answers as `sandbox.handle(new Request(...))`, the same TypeErrors as
 * `fetch`, and a body that behaves as a `Response` body.
 */
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { targetParts } from '../../../src/sandbox/http/call.js';
import { type Sandbox, createSandbox } from '../../../src/sandbox/index.js';
import { cpf } from '../../support/fixtures.js';

const ORIGIN = 'https://sandbox.pix-usdt.local';
const pair = (): [Sandbox, Sandbox] => [createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' }), createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' })];

async function view(response: Response): Promise<{ status: number; headers: Array<[string, string]>; body: string }> {
  const headers = [...response.headers].filter(([name]) => name !== 'x-request-id');
  return { status: response.status, headers, body: await response.text() };
}

const userBody = (n: number) => JSON.stringify({ external_id: `e${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });

// Each case runs on two sandboxes with the same seed: one through fetch, one through a real Request.
const cases: Array<[string, (key: string) => [string | URL, RequestInit | undefined]]> = [
  ['POST with plain headers and a string body', (key) => [`${ORIGIN}/v1/users`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'k1', 'content-type': 'application/json' }, body: userBody(1) }]],
  ['header names in any case, values with edge whitespace', (key) => [`${ORIGIN}/v1/users`, { method: 'POST', headers: { Authorization: ` Bearer ${key}\t`, 'Idempotency-Key': 'k2' }, body: userBody(2) }]],
  ['a relative URL', (key) => ['/v1/users?limit=2', { headers: { authorization: `Bearer ${key}` } }]],
  ['a URL object', (key) => [new URL(`${ORIGIN}/v1/users`), { headers: { authorization: `Bearer ${key}` } }]],
  ['a Headers instance', (key) => [`${ORIGIN}/v1/users`, { method: 'POST', headers: new Headers({ authorization: `Bearer ${key}`, 'idempotency-key': 'k3' }), body: userBody(3) }]],
  ['no init at all (unauthenticated)', () => [`${ORIGIN}/v1/users`, undefined]],
  ['a lower-case method (normalized by Request)', (key) => [`${ORIGIN}/v1/users`, { method: 'post', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'k4' }, body: userBody(4) }]],
  ['a body that is not JSON', (key) => [`${ORIGIN}/v1/users`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'k5' }, body: '{"name":' }]],
  ['a duplicated header (two spellings)', (key) => [`${ORIGIN}/v1/users`, { headers: { authorization: `Bearer ${key}`, Authorization: `Bearer ${key}` } }]],
  ['a path with dot segments', (key) => [`${ORIGIN}/v1/x/../users`, { headers: { authorization: `Bearer ${key}` } }]],
  ['a relative path with an encoded dot segment', (key) => ['/v1/x/%2E%2e/users?limit=1', { headers: { authorization: `Bearer ${key}` } }]],
  ['a query the parser encodes, and a fragment', (key) => [`${ORIGIN}/v1/users?limit=1&x="a b"#frag`, { headers: { authorization: `Bearer ${key}` } }]],
  ['an upper-case host with its default port, and an empty query', (key) => ['HTTPS://SANDBOX.pix-usdt.local:443/v1/users?', { headers: { authorization: `Bearer ${key}` } }]],
  ['another origin, a backslash for a slash', (key) => ['https://api.example.com\\v1/users', { headers: { authorization: `Bearer ${key}` } }]],
];

describe('sandbox.fetch(url, init)', () => {

  it.each(cases)('answers %s exactly as a real Request would', async (_name, make) => {
    const [fast, slow] = pair();
    const [input, init] = make(fast.apiKey);
    const viaFetch = await view(await fast.fetch(input, init));
    const [slowInput, slowInit] = make(slow.apiKey);
    const request = new Request(typeof slowInput === 'string' && slowInput.startsWith('/') ? ORIGIN + slowInput : slowInput, slowInit);
    const viaRequest = await view(await slow.handle(request));
    expect(viaFetch).toEqual(viaRequest);
    expect(fast.snapshot()).toEqual(slow.snapshot());
  });

  it.each([
    ['a header value with a line break', { headers: { 'x-note': 'a\r\nb' } }],
    ['a header name that is not a token', { headers: { 'bad name': 'x' } }],
    ['a header value outside Latin-1', { headers: { 'x-note': 'Ā' } }],
    ['a GET with a body', { method: 'GET', body: '{}' }],
    ['a forbidden method', { method: 'CONNECT' }],
  ] as Array<[string, RequestInit]>)('rejects %s with the TypeError fetch gives, changing nothing', async (_name, init) => {
    const sandbox = createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' });
    const before = sandbox.snapshot();
    const expected = (() => {
      try {
        new Request(`${ORIGIN}/v1/users`, init);
        return null;
      } catch (error) {
        return error;
      }
    })();
    expect(expected).toBeInstanceOf(TypeError);
    const call = sandbox.fetch(`${ORIGIN}/v1/users`, init);
    await expect(call).rejects.toThrow(TypeError);
    await expect(call).rejects.toThrow((expected as Error).message);
    expect(sandbox.snapshot()).toEqual(before);
  });

  it('rejects a URL with credentials or that does not parse, as fetch does', async () => {
    const sandbox = createSandbox();
    await expect(sandbox.fetch('https://user:pw@sandbox.pix-usdt.local/v1/users')).rejects.toThrow(TypeError);
    await expect(sandbox.fetch('http://[bad')).rejects.toThrow(TypeError);
  });

  it('rejects at once with the reason of an aborted signal, and sends nothing', async () => {
    const sandbox = createSandbox();
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    const call = sandbox.fetch('/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'abort' },
      body: userBody(9),
      signal: controller.signal,
    });
    await expect(call).rejects.toThrow('stop');
    const list = await sandbox.fetch('/v1/users', { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect((await list.json()).data).toEqual([]);
  });

  it('shows a middleware the request as a real Request, body included', async () => {
    const sandbox = createSandbox();
    const seen: Array<{ method: string; url: string; key: string | null; body: string; type: string | null }> = [];
    sandbox.use('spy', async (call, next) => {
      seen.push({
        method: call.request.method,
        url: call.request.url,
        key: call.request.headers.get('idempotency-key'),
        body: await call.request.text(),
        type: call.request.headers.get('content-type'),
      });
      return next();
    });
    const body = userBody(7);
    await sandbox.fetch('/v1/users', { method: 'POST', headers: { Authorization: `Bearer ${sandbox.apiKey}`, 'Idempotency-Key': 'spy' }, body });
    expect(seen).toEqual([{ method: 'POST', url: `${ORIGIN}/v1/users`, key: 'spy', body, type: 'text/plain;charset=UTF-8' }]);
    expect(seen[0]).toBeDefined();
  });
});

describe('a request target read without a URL parser (targetParts)', () => {
  it('gives the path and query a URL parser gives, or leaves the target to it', () => {
    const piece = fc.constantFrom('/', '//', '.', '..', '%2e', '%2E', '%41', '%', '?', '#', '&', '=', ' ', '\\', '\t', '"', "'", '<', '`', '{', 'é', '~', '-', '_', ':', '@', '+', 'v1', 'users', 'a.b', '...', 'ID-9');
    let fast = 0;
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const target = `/${pieces.join('')}`;
        const parts = targetParts(target);
        if (parts === null) return;
        fast++;
        const url = new URL(ORIGIN + target);
        expect(parts).toEqual({ path: url.pathname, search: url.search });
      }),
      { numRuns: 3000, seed: 34 },
    );
    // Most targets a client sends take the fast way: the comparison above ran.
    expect(fast).toBeGreaterThan(300);
    expect(targetParts('/v1/quotes/0b7c9f7e-1111-4222-8333-444455556666/accept')).toEqual({ path: '/v1/quotes/0b7c9f7e-1111-4222-8333-444455556666/accept', search: '' });
    expect(targetParts('/v1/users?limit=2&cursor=abc')).toEqual({ path: '/v1/users', search: '?limit=2&cursor=abc' });
  });
});

describe('the Response of sandbox.fetch', () => {
  async function answer(): Promise<{ response: Response; expected: string }> {
    const sandbox = createSandbox({ seed: 'body', now: '2026-03-02T12:00:00Z' });
    const response = await sandbox.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'b' }, body: userBody(1) });
    const replay = await sandbox.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'b' }, body: userBody(1) });
    return { response, expected: await replay.text() };
  }

  it('is a Response with status and headers', async () => {
    const { response } = await answer();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('reads once, as text or JSON; a second read rejects with a TypeError', async () => {
    const { response, expected } = await answer();
    expect(response.bodyUsed).toBe(false);
    expect(await response.text()).toBe(expected);
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    await expect(response.json()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
    // The stream of a body already read is a used one.
    expect(response.body).not.toBeNull();
    expect(response.bodyUsed).toBe(true);
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError);
  });

  it('gives the same bytes through its stream, arrayBuffer, blob and bytes', async () => {
    const expectedText = (await answer()).expected;
    const bytes = new TextEncoder().encode(expectedText);
    const viaStream = (await answer()).response;
    const chunks: Uint8Array[] = [];
    for await (const chunk of viaStream.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(Buffer.concat(chunks)).toEqual(Buffer.from(bytes));
    expect(viaStream.bodyUsed).toBe(true);
    await expect(viaStream.text()).rejects.toThrow(TypeError);
    expect(new Uint8Array(await (await answer()).response.arrayBuffer())).toEqual(bytes);
    expect(await (await (await answer()).response.blob()).text()).toBe(expectedText);
    expect(await (await answer()).response.bytes()).toEqual(bytes);
  });

  it('clones into two independent bodies', async () => {
    const { response, expected } = await answer();
    const copy = response.clone();
    expect(await copy.json()).toEqual(JSON.parse(expected));
    expect(await response.text()).toBe(expected);
    expect(copy.status).toBe(201);
  });

  it('has a null body for an empty answer', async () => {
    const sandbox = createSandbox();
    const created = await sandbox.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'u' }, body: userBody(1) });
    const { id } = (await created.json()) as { id: string };
    const deleted = await sandbox.fetch(`/v1/users/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'd' } });
    expect([deleted.status, deleted.body, await deleted.text()]).toEqual([204, null, '']);
  });

  // Its headers are read from the answer until anything but get/has asks for them (src/sandbox/http/fetch.ts).
  it('has headers that behave as a Headers object, read or changed in any way', async () => {
    const { response } = await answer();
    const real = new Response(null, { headers: { 'content-type': 'application/json', 'x-request-id': response.headers.get('x-request-id') ?? '' } }).headers;
    expect(response.headers).toBeInstanceOf(Headers);
    expect(response.headers.get('Content-Type')).toBe('application/json');
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(response.headers.get('constructor')).toBeNull();
    expect(response.headers.has('X-REQUEST-ID')).toBe(true);
    expect(() => response.headers.get('bad name')).toThrow(TypeError);
    expect([...new Headers(response.headers)]).toEqual([...real]);
    expect([...new Response(null, { headers: response.headers }).headers]).toEqual([...real]);
    expect(inspect(response.headers)).toContain("'content-type': 'application/json'");
    const second = (await answer()).response.headers;
    second.set('x-extra', 'one');
    second.append('x-extra', 'two');
    second.delete('content-type');
    expect([second.get('x-extra'), second.get('content-type'), second.has('x-request-id')]).toEqual(['one, two', null, true]);
    expect([...second.keys()]).toEqual(['x-extra', 'x-request-id']);
    const third = (await answer()).response.headers;
    const seen: string[] = [];
    third.forEach((_value, name) => seen.push(name));
    expect(seen).toEqual(['content-type', 'x-request-id']);
  });

  it('keeps the headers a middleware answers, in any spelling', async () => {
    const sandbox = createSandbox();
    sandbox.use('custom', async () => ({ status: 200, body: '{}', headers: { 'X-Custom': ' kept ', 'content-type': 'application/json' } }));
    const response = await sandbox.fetch('/v1/users', { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect(response.headers.get('x-custom')).toBe('kept');
    expect([...response.headers].map(([name]) => name)).toEqual(['content-type', 'x-custom', 'x-request-id']);
  });
});

// What our own client calls instead of `sandbox.fetch` (src/client/transport.ts): the same request
// as `fetch` takes it, the same answer, and a `Response` only on demand.
describe('the in-process exchange of sandbox.fetch', () => {
  type Exchange = (input: string | URL, init: RequestInit | undefined) => Promise<{ status: number; text: string; header(name: string): string | null; response(): Response }>;
  const exchangeOf = (sandbox: Sandbox): Exchange => {
    const carried = (sandbox.fetch as unknown as Record<symbol, { of: unknown; exchange: Exchange }>)[Symbol.for('pix-usdt.in-process')];
    expect(carried?.of).toBe(sandbox.fetch);
    return carried?.exchange as Exchange;
  };

  it('answers every case as sandbox.fetch does, changing the same state', async () => {
    for (const [name, make] of cases) {
      const [viaFetch, viaExchange] = pair();
      const [input, init] = make(viaFetch.apiKey);
      const fetched = await viaFetch.fetch(input, init);
      const [exInput, exInit] = make(viaExchange.apiKey);
      const exchanged = await exchangeOf(viaExchange)(exInput, exInit);
      const text = await fetched.clone().text();
      expect([name, exchanged.status, exchanged.text], name).toEqual([name, fetched.status, text]);
      for (const header of ['content-type', 'Idempotent-Replayed', 'x-request-id', 'retry-after']) expect(exchanged.header(header) === null, `${name}: ${header}`).toBe(fetched.headers.get(header) === null);
      const response = exchanged.response();
      expect(response).toBe(exchanged.response());
      expect(response).toBeInstanceOf(Response);
      // Read already, as the client leaves a response it has read.
      expect(response.bodyUsed).toBe(true);
      expect([response.status, [...response.headers].filter(([h]) => h !== 'x-request-id')]).toEqual([fetched.status, [...fetched.headers].filter(([h]) => h !== 'x-request-id')]);
      expect(viaExchange.snapshot()).toEqual(viaFetch.snapshot());
    }
  });

  it('rejects as fetch does: a bad header, an aborted signal, a network fault', async () => {
    const sandbox = createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' });
    const exchange = exchangeOf(sandbox);
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'network' } });
    const before = sandbox.snapshot();
    await expect(exchange(`${ORIGIN}/v1/users`, { headers: { 'x-note': 'a\r\nb' } })).rejects.toThrow(TypeError);
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(exchange('/v1/users', { signal: controller.signal })).rejects.toThrow('stop');
    expect(sandbox.snapshot()).toEqual(before);
    await expect(exchange('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'idempotency-key': 'n' }, body: userBody(8) })).rejects.toThrow('fetch failed');
  });

  it('reads the headers a middleware answers, in any spelling, as Headers would', async () => {
    const sandbox = createSandbox();
    sandbox.use('custom', async () => ({ status: 200, body: '{}', headers: { 'X-Custom': ' kept ', 'content-type': 'application/json' } }));
    const answer = await exchangeOf(sandbox)('/v1/users', { headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    expect([answer.header('x-custom'), answer.header('X-CUSTOM'), answer.header('content-type')]).toEqual(['kept', 'kept', 'application/json']);
    expect(() => answer.header('bad name')).toThrow(TypeError);
  });

  it('rejects an answer whose headers a Response refuses, as fetch does', async () => {
    const sandbox = createSandbox();
    sandbox.use('bad', async () => ({ status: 200, body: '{}', headers: { 'x-bad': 'a\r\nb' } }));
    const init = { headers: { authorization: `Bearer ${sandbox.apiKey}` } };
    await expect(sandbox.fetch('/v1/users', init)).rejects.toThrow(TypeError);
    await expect(exchangeOf(sandbox)('/v1/users', init)).rejects.toThrow(TypeError);
  });
});
