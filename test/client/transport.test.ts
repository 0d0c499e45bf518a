// The attempt itself: a custom fetch that misbehaves is handled like a network failure.
import { describe, expect, it, vi } from 'vitest';
import { PixUsdt, isConnectionError } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';

const KEY = `sk_test_${'a'.repeat(32)}`;
const USER_ID = '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d';

describe('a custom fetch that throws synchronously', () => {
  it('is a connection error, retried like one, and never escapes as a raw exception', async () => {
    let calls = 0;
    const waits: number[] = [];
    const client = new PixUsdt({
      apiKey: KEY,
      maxRetries: 2,
      fetch: () => {
        calls += 1;
        throw new TypeError('boom');
      },
      sleep: async (ms) => void waits.push(ms),
    });
    const error = await client.users.retrieve(USER_ID).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(calls).toBe(3);
    expect(waits).toHaveLength(2);
  });
});

// `sandbox.fetch` carries an exchange under this global symbol (src/sandbox/http/fetch.ts): the
// client calls it instead of the fetch, and builds no Response unless asked (issue 34).
describe('a fetch that carries an in-process exchange', () => {
  const USER = { id: USER_ID, external_id: 'x', name: 'N', document_type: 'cpf', document_number: '52998224725', kyc_status: 'approved', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };

  function exchanging(answers: Array<{ status: number; body: unknown; headers?: Record<string, string> }>) {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    let built = 0;
    const fetch = () => Promise.reject(new Error('the fetch itself is not called'));
    Object.defineProperty(fetch, Symbol.for('pix-usdt.in-process'), {
      value: {
        of: fetch,
        exchange: async (url: string, init: RequestInit) => {
        calls.push({ url, init });
        const { status, body, headers = {} } = answers.shift() as (typeof answers)[number];
        const text = JSON.stringify(body);
        let response: Response | undefined;
        return {
          status,
          text,
          header: (name: string) => headers[name.toLowerCase()] ?? null,
          response: () => (response ??= (built++, new Response(text, { status, headers }))),
        };
        },
      },
    });
    return { fetch, calls, built: () => built };
  }

  it('sends the same request through it, and reads status, headers and body from its answer', async () => {
    const ex = exchanging([
      { status: 429, body: { code: 'rate_limit_exceeded', message: 'slow down', request_id: 'req_1' }, headers: { 'retry-after': '7' } },
      { status: 201, body: USER, headers: { 'x-request-id': 'req_2', 'idempotent-replayed': 'true' } },
    ]);
    const waits: number[] = [];
    const client = new PixUsdt({ apiKey: KEY, fetch: ex.fetch, sleep: async (ms) => void waits.push(ms) });
    const call = client.users.create({ external_id: 'x', name: 'N', document_type: 'cpf', document_number: '52998224725' }, { idempotencyKey: 'k' });
    expect(await call).toEqual(USER);
    // Awaiting the data builds no Response; withResponse() builds it, once.
    expect(ex.built()).toBe(0);
    const answer = await call.withResponse();
    expect(waits).toEqual([7000]);
    expect(ex.calls.map((c) => [c.url, c.init.method, (c.init.headers as Record<string, string>)['idempotency-key']])).toEqual([
      ['https://sandbox.pix-usdt.com/v1/users', 'POST', 'k'],
      ['https://sandbox.pix-usdt.com/v1/users', 'POST', 'k'],
    ]);
    expect([answer.data, answer.requestId, answer.idempotentReplayed, answer.attempts]).toEqual([USER, 'req_2', true, 2]);
    expect(answer.response.status).toBe(201);
    expect({ ...answer }.response).toBe(answer.response);
    expect(await call.withResponse()).toBe(answer);
    expect(ex.built()).toBe(1);
  });
});

describe('a spy or wrapper around sandbox.fetch', () => {
  it('is called for every attempt, though it may copy the exchange the sandbox carries', async () => {
    const sandbox = createSandbox({ seed: 'spy' });
    const spy = vi.fn(sandbox.fetch);
    // vitest's spies copy the function's own properties, the exchange's symbol included.
    expect((spy as unknown as Record<symbol, unknown>)[Symbol.for('pix-usdt.in-process')]).toBeDefined();
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: spy });
    const user = await client.users.create({ external_id: 'spy', name: 'Spy', document_type: 'cpf', document_number: '52998224725' });
    await client.users.retrieve(user.id);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});

// `then` derives one promise from the answer (issue 34): what a promise's `then` does with
// missing or non-function callbacks, a throwing callback, and a rejection, it still does.
describe("an ApiPromise's then", () => {
  const user = { id: USER_ID, external_id: 'x', name: 'N', document_type: 'cpf', document_number: '52998224725', kyc_status: 'approved', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
  const answering = (status: number, body: unknown) =>
    new PixUsdt({ apiKey: KEY, maxRetries: 0, fetch: async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } }) });

  it('passes the data through a missing or non-function callback, and hands it to a function', async () => {
    const client = answering(200, user);
    expect(await client.users.retrieve(USER_ID).then()).toMatchObject({ id: USER_ID });
    expect(await client.users.retrieve(USER_ID).then(null, () => 'rejected')).toMatchObject({ id: USER_ID });
    expect(await (client.users.retrieve(USER_ID).then as (f: unknown) => Promise<unknown>)(42)).toMatchObject({ id: USER_ID });
    expect(await client.users.retrieve(USER_ID).then((u) => u.id)).toBe(USER_ID);
  });

  it('rejects with what the callback throws, and gives a rejection to onrejected, catch and finally', async () => {
    const client = answering(200, user);
    const thrown = new Error('from the callback');
    await expect(client.users.retrieve(USER_ID).then(() => { throw thrown; })).rejects.toBe(thrown);
    const failing = answering(404, { code: 'user_not_found', message: 'No such user.' });
    expect(await failing.users.retrieve(USER_ID).then(() => 'fulfilled', (e: unknown) => (e as { status?: number }).status)).toBe(404);
    expect(await failing.users.retrieve(USER_ID).catch((e: unknown) => (e as { status?: number }).status)).toBe(404);
    let finished = false;
    await expect(failing.users.retrieve(USER_ID).finally(() => (finished = true))).rejects.toMatchObject({ status: 404 });
    expect(finished).toBe(true);
  });
});
