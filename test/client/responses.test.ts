/**
 * Response metadata (issue 10): `.withResponse()` on what every method returns reaches the
 * request id, `Idempotent-Replayed`, the status and the headers; pages get `toArray({ max })`.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiPromise, Page, PixUsdt, type User, type WithResponse } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { ID, apiError, fixtures as f, json, makeClient, reply, requests, useMockServer } from './helpers.js';

useMockServer();

const USER_BODY = { external_id: 'meta-1', name: 'Meta', document_type: 'cpf', document_number: '52998224725' } as const;
const user = (n: number) => ({ ...f.user, external_id: `ext-${n}` });

describe('withResponse()', () => {
  it('gives the data with the request id, status, headers and the idempotency facts', async () => {
    const sandbox = createSandbox({ seed: 'with-response' });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
    const first = await client.users.create(USER_BODY, { idempotencyKey: 'meta-key-1' }).withResponse();
    expect(first.response.status).toBe(201);
    expect(first.requestId).toMatch(/^req_[0-9a-f]{32}$/);
    expect(first.response.headers.get('x-request-id')).toBe(first.requestId);
    expect(first.response.bodyUsed).toBe(true);
    expect(first.idempotencyKey).toBe('meta-key-1');
    expect(first.idempotentReplayed).toBe(false);
    expect(first.attempts).toBe(1);
    expect(first.data).toMatchObject({ external_id: 'meta-1' });

    const replay = await client.users.create(USER_BODY, { idempotencyKey: 'meta-key-1' }).withResponse();
    expect(replay.idempotentReplayed).toBe(true);
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data.id).toBe(first.data.id);
    // A replay is the first answer, its x-request-id included (docs/decisions.md, Sandbox).
    expect(replay.requestId).toBe(first.requestId);
  });

  it('awaiting the call still gives the data alone, and it is a real Promise', async () => {
    const { client } = makeClient();
    reply(json(f.user));
    const call = client.users.retrieve(ID);
    expect(call).toBeInstanceOf(Promise);
    expect(call).toBeInstanceOf(ApiPromise);
    await expect(call).resolves.toEqual(f.user);
    // then/catch/finally give plain promises, not ApiPromises.
    reply(json(f.user));
    const derived = client.users.retrieve(ID).then((u) => u.id);
    expect(derived).not.toBeInstanceOf(ApiPromise);
    await expect(derived).resolves.toBe(ID);
  });

  it('counts the attempts of a call that was retried, under one idempotency key', async () => {
    const { client } = makeClient();
    reply(apiError(503, 'service_unavailable'), json(f.user, 201, { 'x-request-id': 'req_second' }));
    const answer = await client.users.create(USER_BODY).withResponse();
    expect(answer.attempts).toBe(2);
    expect(answer.requestId).toBe('req_second');
    expect(requests().map((r) => r.headers.get('idempotency-key'))).toEqual([answer.idempotencyKey, answer.idempotencyKey]);
  });

  it('an empty answer (204) has undefined data and its status', async () => {
    const { client } = makeClient();
    reply(() => new Response(null, { status: 204, headers: { 'x-request-id': 'req_deleted' } }));
    const answer = await client.users.delete(ID).withResponse();
    expect(answer).toMatchObject({ data: undefined, requestId: 'req_deleted', idempotentReplayed: false });
    expect(answer.response.status).toBe(204);
  });

  it('a failed call rejects withResponse() with the same error as awaiting it', async () => {
    const { client } = makeClient({ maxRetries: 0 });
    reply(apiError(404, 'resource_not_found'));
    await expect(client.users.retrieve(ID).withResponse()).rejects.toMatchObject({ name: 'NotFoundError', code: 'resource_not_found', requestId: 'req_404' });
  });

  it('a listing reaches the response of its first page', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1)], next_cursor: null }, 200, { 'x-request-id': 'req_page' }));
    const answer = await client.users.list().withResponse();
    expect(answer.data).toBeInstanceOf(Page);
    expect(answer.data.data).toHaveLength(1);
    expect(answer.requestId).toBe('req_page');
  });

  it('is typed', () => {
    const client = new PixUsdt({ apiKey: `sk_test_${'a'.repeat(32)}`, fetch: () => Promise.reject(new Error('not called')) });
    const answer = () => client.users.retrieve(ID).withResponse();
    expectTypeOf(answer).returns.resolves.toEqualTypeOf<WithResponse<User>>();
    expectTypeOf(answer).returns.resolves.toHaveProperty('requestId').toEqualTypeOf<string | null>();
    expectTypeOf(answer).returns.resolves.toHaveProperty('idempotentReplayed').toEqualTypeOf<boolean>();
    // Types only: a function not called, as `answer` above (a listing sends its request when made).
    const listing = () => client.users.list().withResponse();
    expectTypeOf(listing).returns.resolves.toHaveProperty('data').toEqualTypeOf<Page<User>>();
  });
});

describe('toArray({ max })', () => {
  it('collects across pages and stops at max without requesting a further page', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1), user(2)], next_cursor: 'c2' }), json({ data: [user(3), user(4)], next_cursor: 'c3' }));
    const items = await client.users.list().toArray({ max: 3 });
    expect(items.map((u) => u.external_id)).toEqual(['ext-1', 'ext-2', 'ext-3']);
    expect(requests()).toHaveLength(2);
  });

  it('gives every item when the listing ends before max, following empty pages', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1)], next_cursor: 'c2' }), json({ data: [], next_cursor: 'c3' }), json({ data: [user(2)], next_cursor: null }));
    const items = await client.users.list().toArray({ max: 10 });
    expect(items.map((u) => u.external_id)).toEqual(['ext-1', 'ext-2']);
    expect(requests()).toHaveLength(3);
  });

  it('works from a page too, from where it stands', async () => {
    const { client } = makeClient();
    reply(json({ data: [user(1)], next_cursor: 'c2' }), json({ data: [user(2)], next_cursor: null }));
    const page = await client.users.list();
    expect((await page.toArray({ max: 1 })).map((u) => u.external_id)).toEqual(['ext-1']);
    expect(requests()).toHaveLength(1);
  });

  it.each([0, -1, 1.5, Number.NaN, undefined])('refuses max %s with a ClientValidationError', async (max) => {
    const { client } = makeClient();
    reply(json({ data: [user(1)], next_cursor: null }));
    const listing = client.users.list();
    await expect(listing.toArray({ max } as { max: number })).rejects.toMatchObject({
      name: 'ClientValidationError',
      details: { issues: [{ path: 'max', message: expect.stringMatching(/^Expected a positive integer, received /) }] },
    });
    const page = await listing;
    await expect(page.toArray({ max } as { max: number })).rejects.toMatchObject({ name: 'ClientValidationError' });
  });
});
