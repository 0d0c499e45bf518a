/**
 * `sandbox.fetch` reads `fetch(url, init)` without building a `Request` and answers with a
 * `SandboxResponse` (src/sandbox/http/fetch.ts). Both must be indistinguishable from the web objects
 * they stand for: the same answers as `sandbox.handle(new Request(...))`, the same TypeErrors as
 * `fetch`, and a body that behaves as a `Response` body.
 */
import { describe, expect, it } from 'vitest';
import { type Sandbox, createSandbox } from '../../../src/sandbox/index.js';
import { cpf } from '../../support/fixtures.js';

const ORIGIN = 'https://sandbox.pix-usdt.local';
const pair = (): [Sandbox, Sandbox] => [createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' }), createSandbox({ seed: 'fetch', now: '2026-03-02T12:00:00Z' })];

async function view(response: Response): Promise<{ status: number; headers: Array<[string, string]>; body: string }> {
  const headers = [...response.headers].filter(([name]) => name !== 'x-request-id');
  return { status: response.status, headers, body: await response.text() };
}

const userBody = (n: number) => JSON.stringify({ external_id: `e${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });

describe('sandbox.fetch(url, init)', () => {
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
  ];

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
});
