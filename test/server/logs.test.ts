/**
 * `logs tail` against a running server: the live request log, its filters, replays and
 * injected faults, and the key check of its feed (`/_sandbox/logs`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, type Ready, exitCode, run, serve, stopAll, waitFor } from './helpers.js';

afterAll(stopAll);

interface Entry {
  request_id: string;
  method: string;
  path: string;
  status: number;
  latency_ms: number;
  replayed: boolean;
  fault: string | null;
}

const envOf = (ready: Ready): NodeJS.ProcessEnv => ({ PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: ready.api_key });

function entries(child: Child): Entry[] {
  return child
    .stdout()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Entry);
}

/** Starts `logs tail`; resolves once it is subscribed. */
async function tail(ready: Ready, args: string[] = []): Promise<Child> {
  const child = run(['logs', 'tail', ...args], envOf(ready));
  await waitFor(child, () => (child.stderr().includes('tailing the request log') ? true : undefined), 'the subscription');
  return child;
}

function call(ready: Ready, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${ready.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

describe('logs tail', () => {
  let ready: Ready;
  beforeAll(async () => {
    ({ ready } = await serve());
  });

  it('--json: one line per request, with request id, status, latency, replays and faults', async () => {
    const child = await tail(ready, ['--json']);
    const user = { external_id: 'logs-1', name: 'Log User', document_type: 'cpf', document_number: '52998224725' };
    const first = await call(ready, 'POST', '/v1/users', user, { 'idempotency-key': 'logs-user' });
    const again = await call(ready, 'POST', '/v1/users', user, { 'idempotency-key': 'logs-user' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const plan = (await (await call(ready, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/quotes', nth: 1, fault: { type: 'error', code: 'internal_error' } })).json()) as { id: string };
    const faulted = await call(ready, 'GET', '/v1/quotes?cpf=52998224725');
    expect(faulted.status).toBe(500);
    const lines = await waitFor(child, () => (entries(child).length >= 4 ? entries(child) : undefined), 'four log lines');
    expect(lines[0]).toMatchObject({ method: 'POST', path: '/v1/users', status: 201, replayed: false, fault: null, request_id: first.headers.get('x-request-id') });
    expect(lines[1]).toMatchObject({ method: 'POST', path: '/v1/users', status: 201, replayed: true });
    expect(lines[3]).toMatchObject({ method: 'GET', path: '/v1/quotes', status: 500, fault: plan.id, request_id: faulted.headers.get('x-request-id') });
    expect(lines[0]?.latency_ms).toEqual(expect.any(Number));
    // No query string, no key, ever.
    expect(child.stdout()).not.toContain('52998224725');
    expect(child.stdout()).not.toContain(ready.api_key);
    child.process.kill('SIGINT');
    expect(await exitCode(child)).toBe(0);
  });

  it('--status 4xx --path /v1/users: only the matching requests, as text', async () => {
    const child = await tail(ready, ['--status', '4xx', '--path', '/v1/users']);
    await call(ready, 'GET', '/v1/users'); // 200: filtered out
    await call(ready, 'GET', '/v1/conversions/not-a-uuid'); // 400 on another path: filtered out
    const missing = await call(ready, 'GET', '/v1/users/00000000-0000-4000-8000-000000000000');
    expect(missing.status).toBe(404);
    const id = missing.headers.get('x-request-id') as string;
    await waitFor(child, () => (child.stdout().includes(id) ? true : undefined), 'the 404 line');
    const lines = child.stdout().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`${id}  GET /v1/users/00000000-0000-4000-8000-000000000000 404 [\\d.]+ms$`));
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });

  it('a key the server does not know: exit 4; the feed answers 401', async () => {
    const child = run(['logs', 'tail'], { ...envOf(ready), PIX_USDT_API_KEY: `sk_test_${'u'.repeat(32)}` });
    expect(await exitCode(child)).toBe(4);
    expect(child.stderr()).toMatch(/refused the API key/);
    const res = await fetch(`${ready.url}/_sandbox/logs`);
    expect(res.status).toBe(401);
  });

  it('ends with exit 0 when the server stops', async () => {
    const own = await serve();
    const child = await tail(own.ready);
    own.child.process.kill('SIGTERM');
    expect(await exitCode(own.child)).toBe(0);
    expect(await exitCode(child)).toBe(0);
    expect(child.stderr()).toMatch(/the server closed the log/);
  });
});
