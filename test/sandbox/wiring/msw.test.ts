/**
 * `pix-usdt/sandbox/msw` with msw in Node (`setupServer`): the client, plain fetch and axios
 * (another HTTP stack: node:http underneath) all reach the in-process sandbox.
 */
import axios, { type AxiosError } from 'axios';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PixUsdt, SANDBOX_BASE_URL, isNotFoundError } from '../../../src/index.js';
import { createSandbox } from '../../../src/sandbox/index.js';
import { createSandboxHandlers } from '../../../src/sandbox/msw.js';
import { onrampBody } from '../../support/fixtures.js';

// Anything the sandbox handlers do not take lands here, so the tests can see it (never the network).
const fallback = http.all('*', () => HttpResponse.text('not the sandbox', { status: 418 }));
const server = setupServer(fallback);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const USER = { external_id: 'ext-1', name: 'Ana', document_type: 'cpf', document_number: '52998224725' } as const;

describe('createSandboxHandlers', () => {
  it('the client with its default base URL runs a whole onramp against the sandbox', async () => {
    const sandbox = createSandbox({ seed: 1 });
    server.use(...createSandboxHandlers(sandbox));
    const client = new PixUsdt({ apiKey: sandbox.apiKey, maxRetries: 0, validation: 'strict' });
    const user = await client.users.create(USER);
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const quote = await client.quotes.create(onrampBody(user.id));
    const conversion = await client.quotes.accept(quote.id);
    expect(conversion.quote_id).toBe(quote.id);
    // The state lives in the sandbox object: the requests really went through it.
    expect(sandbox.events().map((e) => e.type)).toContain('user.kyc_approved');
    expect(await client.conversions.retrieve(conversion.id)).toMatchObject({ id: conversion.id, quote_id: quote.id });
    const error = await client.users.retrieve('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(isNotFoundError(error)).toBe(true);
  });

  it('an injected network fault reaches the caller as a network error; the retry replays the commit', async () => {
    const sandbox = createSandbox();
    server.use(...createSandboxHandlers(sandbox));
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'commit_then_lose' } });
    const plain = await fetch(`${SANDBOX_BASE_URL}/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'lost-1' },
      body: JSON.stringify(USER),
    }).catch((e: unknown) => e);
    expect(plain).toBeInstanceOf(TypeError);
    // The effect happened: the same key now replays the stored answer.
    const client = new PixUsdt({ apiKey: sandbox.apiKey });
    const user = await client.users.create(USER, { idempotencyKey: 'lost-1' });
    expect(user.external_id).toBe(USER.external_id);
    expect((await client.users.list()).data).toHaveLength(1);
  });

  it('axios (node:http underneath) gets the sandbox answers, errors in the envelope', async () => {
    const sandbox = createSandbox();
    server.use(...createSandboxHandlers(sandbox));
    const api = axios.create({ baseURL: `${SANDBOX_BASE_URL}/v1`, headers: { authorization: `Bearer ${sandbox.apiKey}` } });
    const created = await api.post('/users', USER, { headers: { 'idempotency-key': 'axios-1' } });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ external_id: 'ext-1', kyc_status: expect.any(String) });
    expect(created.headers['x-request-id']).toMatch(/^req_/);
    const replay = await api.post('/users', USER, { headers: { 'idempotency-key': 'axios-1' } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.data.id).toBe(created.data.id);
    const listed = await api.get('/users', { params: { limit: 1 } });
    expect(listed.data.data).toHaveLength(1);

    const failure = (await api.get('/users', { headers: { authorization: 'Bearer sk_test_wrong' } }).catch((e: unknown) => e)) as AxiosError<{ code: string }>;
    expect(failure.response?.status).toBe(401);
    expect(failure.response?.data.code).toBe('invalid_api_key_format');
  });

  it('plain fetch, several base URLs (one with a port), and nothing outside /v1', async () => {
    const sandbox = createSandbox();
    server.use(...createSandboxHandlers(sandbox, { baseUrl: ['https://api.test/', 'http://localhost:4010'] }));
    const auth = { authorization: `Bearer ${sandbox.apiKey}` };
    for (const base of ['https://api.test', 'http://localhost:4010']) {
      const res = await fetch(`${base}/v1/users?limit=5`, { headers: auth });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: [], next_cursor: null });
    }
    // Outside the base URLs or outside /v1: not the sandbox.
    for (const url of ['https://api.test/health', `${SANDBOX_BASE_URL}/v1/users`, 'http://localhost:4011/v1/users']) {
      const res = await fetch(url, { headers: auth });
      expect(res.status, url).toBe(418);
    }
  });

  it('one sandbox behind two handler sets shares its state', async () => {
    const sandbox = createSandbox();
    server.use(...createSandboxHandlers(sandbox, { baseUrl: 'https://a.test' }), ...createSandboxHandlers(sandbox, { baseUrl: 'https://b.test' }));
    const headers = { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k1' };
    const created = await fetch('https://a.test/v1/users', { method: 'POST', headers, body: JSON.stringify(USER) });
    const { id } = (await created.json()) as { id: string };
    const got = await fetch(`https://b.test/v1/users/${id}`, { headers });
    expect(got.status).toBe(200);
  });

  it('refuses an invalid base URL', () => {
    const sandbox = createSandbox();
    expect(() => createSandboxHandlers(sandbox, { baseUrl: 'sandbox.pix-usdt.com' })).toThrow(TypeError);
    expect(() => createSandboxHandlers(sandbox, { baseUrl: 'https://x.test/?a=1' })).toThrow(/no query/);
    expect(() => createSandboxHandlers(sandbox, { baseUrl: [] })).toThrow(/at least one/);
  });
});
