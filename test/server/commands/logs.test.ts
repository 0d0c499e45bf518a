/**
 * `logs tail` against a running server: the live request log, its filters, replays and
 * injected faults, and the key check of its feed (`/_sandbox/logs`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Child, type Ready, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';

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

// One server for the file: each case makes its own requests (and tenants) and looks for their ids.
let ready: Ready;
beforeAll(async () => {
  ({ ready } = await serve());
});

describe('logs tail', () => {

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

  it('--backlog N: the last N requests the server kept come first (filters apply), then the new ones', async () => {
    const missing = await call(ready, 'GET', '/v1/users/00000000-0000-4000-8000-000000000001');
    const kept = await call(ready, 'GET', '/v1/users?limit=1');
    const child = await tail(ready, ['--backlog', '2', '--json', '--path', '/v1/users']);
    const ids = await waitFor(child, () => (entries(child).length >= 2 ? entries(child).map((e) => e.request_id) : undefined), 'the backlog');
    expect(ids).toEqual([missing.headers.get('x-request-id'), kept.headers.get('x-request-id')]);
    const live = await call(ready, 'GET', '/v1/users');
    const id = live.headers.get('x-request-id') as string;
    await waitFor(child, () => (entries(child).length === 3 ? true : undefined), 'the new request');
    expect(entries(child).map((e) => e.request_id)).toEqual([...ids, id]);
    child.process.kill('SIGINT');
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

/** A raw reader of the feed: the frames' JSON entries so far, and a way to stop. */
async function feed(ready: Ready, key: string, query = ''): Promise<{ status: number; entries: () => Array<Entry & { tenant_id: string | null }>; text: () => string; ended: Promise<void>; stop: () => void }> {
  const controller = new AbortController();
  const response = await fetch(`${ready.url}/_sandbox/logs${query}`, { headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
  let text = '';
  const ended = (async () => {
    if (response.body === null) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
    } catch {
      // Aborted by `stop`.
    }
  })();
  const entries = () =>
    text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Entry & { tenant_id: string | null });
  return { status: response.status, entries, text: () => text, ended, stop: () => controller.abort() };
}

async function until<T>(check: () => T | undefined, what: string, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("whose log (issue 21): a tenant's key reads its own tenant's requests; the control key, every request", () => {
  it('two tenants on one server: B sees only B, the operator sees both; a rotated key reads no more', async () => {
    const as = (key: string) => ({ ...ready, api_key: key });
    const created = (await (await call(ready, 'POST', '/v1/test_helpers/tenants', {})).json()) as { tenant_id: string; api_key: string; api_keys: Array<{ id: string }> };
    const b = as(created.api_key);
    // A (the default tenant) leaves its ids in paths before anyone listens: the backlog.
    const userA = (await (await call(ready, 'POST', '/v1/users', { external_id: 'a-1', name: 'Ana A', document_type: 'cpf', document_number: '52998224725' }, { 'idempotency-key': 'a-1' })).json()) as { id: string };
    await call(ready, 'GET', `/v1/users/${userA.id}`);
    await call(b, 'GET', '/v1/users');
    const bFeed = await feed(ready, b.api_key, '?backlog=100');
    const operator = await feed(ready, ready.control_key, '?backlog=100');
    expect([bFeed.status, operator.status]).toEqual([200, 200]);
    // Live: one more request each.
    const liveA = await call(ready, 'GET', `/v1/users/${userA.id}/wallet`);
    const liveB = await call(b, 'GET', '/v1/quotes');
    const liveBId = liveB.headers.get('x-request-id') as string;
    await until(() => (operator.entries().some((e) => e.request_id === liveBId) && bFeed.entries().some((e) => e.request_id === liveBId) ? true : undefined), "B's live request on both feeds");
    expect(bFeed.entries().length).toBeGreaterThanOrEqual(2);
    expect(bFeed.entries().every((e) => e.tenant_id === created.tenant_id)).toBe(true);
    expect(bFeed.text()).not.toContain(userA.id);
    expect(bFeed.text()).not.toContain(liveA.headers.get('x-request-id') as string);
    const seen = new Set(operator.entries().map((e) => e.tenant_id));
    expect(seen.has(ready.tenant_id) && seen.has(created.tenant_id)).toBe(true);
    expect(operator.text()).toContain(userA.id);
    expect(operator.text()).toContain(liveA.headers.get('x-request-id') as string);
    // B rotates the key its feed was opened with: that feed reads nothing more and is closed.
    const rotated = (await (await call(b, 'POST', `/v1/api-keys/${created.api_keys[0]!.id}/rotate`, undefined, { 'idempotency-key': 'rot-b' })).json()) as { api_key: string };
    await call(as(rotated.api_key), 'GET', '/v1/users?limit=2');
    await bFeed.ended;
    expect(bFeed.text()).not.toContain('/v1/users?');
    expect(bFeed.entries().filter((e) => e.path === '/v1/users' && e.method === 'GET').length).toBe(1);
    operator.stop();
    // Neither a revoked key nor nothing opens it.
    expect((await feed(ready, created.api_key)).status).toBe(401);
    expect((await fetch(`${ready.url}/_sandbox/logs`)).status).toBe(401);
  });

  it('`logs tail` with the control key prints every tenant\'s requests', async () => {
    const created = (await (await call(ready, 'POST', '/v1/test_helpers/tenants', {})).json()) as { api_key: string };
    const child = run(['logs', 'tail', '--json'], { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: ready.control_key });
    await waitFor(child, () => (child.stderr().includes('tailing the request log') ? true : undefined), 'the subscription');
    const a = await call(ready, 'GET', '/v1/users');
    const b = await call({ ...ready, api_key: created.api_key }, 'GET', '/v1/users');
    const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')] as string[];
    await waitFor(child, () => (ids.every((id) => child.stdout().includes(id)) ? true : undefined), 'both requests');
    child.process.kill('SIGINT');
    expect(await exitCode(child)).toBe(0);
  });
});
