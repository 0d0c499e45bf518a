/**
 * One table of requests against the three faces of the sandbox: `sandbox.fetch`, msw and the
 * real server. Each answers with the same status, error code and body shape.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { createSandboxHandlers } from '../../../src/sandbox/msw.js';
import { serve, stopAll } from '../helpers.js';
import { CPF } from '../../support/fixtures.js';

interface Case {
  name: string;
  method: string;
  path: string;
  /** `false`: no Authorization header; a string: this header instead of the key. */
  auth?: false | string;
  idempotencyKey?: string;
  body?: string;
}

const USER = JSON.stringify({ external_id: 'parity', name: 'Ana', document_type: 'cpf', document_number: CPF });

// The too-large body goes last: the server answers it without the engine, so the engine's
// seeded sequence of ids differs from there on.
const CASES: Case[] = [
  { name: 'no key', method: 'GET', path: '/v1/users', auth: false },
  { name: 'malformed key', method: 'GET', path: '/v1/users', auth: 'Bearer not-a-key' },
  { name: 'list', method: 'GET', path: '/v1/users?limit=2' },
  { name: 'create', method: 'POST', path: '/v1/users', idempotencyKey: 'p1', body: USER },
  { name: 'replay', method: 'POST', path: '/v1/users', idempotencyKey: 'p1', body: USER },
  { name: 'key reused with another body', method: 'POST', path: '/v1/users', idempotencyKey: 'p1', body: '{}' },
  { name: 'invalid JSON', method: 'POST', path: '/v1/users', idempotencyKey: 'p2', body: '{nope' },
  { name: 'validation', method: 'POST', path: '/v1/users', idempotencyKey: 'p3', body: '{"name":1}' },
  { name: 'unknown route', method: 'GET', path: '/v1/nothing-here' },
  { name: 'unknown user', method: 'GET', path: '/v1/users/00000000-0000-4000-8000-000000000000' },
  { name: 'clock', method: 'GET', path: '/v1/test_helpers/clock' },
  { name: 'body over 1 MB', method: 'POST', path: '/v1/users', idempotencyKey: 'p4', body: `{"name":"${'a'.repeat(1_000_001)}"}` },
];

interface Outcome {
  status: number;
  code: unknown;
  keys: string[];
  replayed: string | null;
}

type Send = (url: string, init: RequestInit) => Promise<Response>;

async function runAll(base: string, apiKey: string, send: Send): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const c of CASES) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (c.auth !== false) headers['authorization'] = c.auth ?? `Bearer ${apiKey}`;
    if (c.idempotencyKey !== undefined) headers['idempotency-key'] = c.idempotencyKey;
    const res = await send(`${base}${c.path}`, { method: c.method, headers, ...(c.body === undefined ? {} : { body: c.body }) });
    const text = await res.text();
    const body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    out.push({ status: res.status, code: body['code'], keys: Object.keys(body).sort(), replayed: res.headers.get('idempotent-replayed') });
  }
  return out;
}

const msw = setupServer();
beforeAll(() => msw.listen({ onUnhandledRequest: 'bypass' }));
afterEach(() => {
  msw.resetHandlers();
  stopAll();
});
afterAll(() => msw.close());

describe('sandbox.fetch, msw and the server answer alike', () => {
  it('every case of the table', async () => {
    const inProcess = createSandbox({ seed: 5 });
    const viaFetch = await runAll('https://sandbox.test', inProcess.apiKey, (url, init) => inProcess.fetch(url, init));

    const behindMsw = createSandbox({ seed: 5 });
    msw.use(...createSandboxHandlers(behindMsw, { baseUrl: 'https://msw.test' }));
    const viaMsw = await runAll('https://msw.test', behindMsw.apiKey, (url, init) => fetch(url, init));

    const { ready } = await serve(['--seed', '5']);
    const viaServer = await runAll(ready.url, ready.api_key, (url, init) => fetch(url, init));

    // The table really exercises different answers.
    expect(new Set(viaFetch.map((o) => o.status))).toEqual(new Set([200, 201, 400, 401, 404, 409]));
    expect(viaFetch[4]?.replayed).toBe('true');
    const named = (list: Outcome[]): Record<string, Outcome> => Object.fromEntries(list.map((o, i) => [CASES[i]?.name, o]));
    expect(named(viaMsw)).toEqual(named(viaFetch));
    expect(named(viaServer)).toEqual(named(viaFetch));
    // Seeded alike, the three issue the same key.
    expect(ready.api_key).toBe(inProcess.apiKey);
  });
});
