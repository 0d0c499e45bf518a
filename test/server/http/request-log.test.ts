/**
 * One request log (issue 32): the server's stderr line, `/_sandbox/logs`, `logs tail` and the
 * inspector read the sandbox's one log. A served request is recorded once, with one `at` (the
 * real time of the answer, whatever the tenant's clock says); the server's own refusals, before
 * any tenant is known, are in the same log, for the operator only. And the fork's larger body
 * limit holds on the listener's one path.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import type { RequestLogEntry } from '../../../src/sandbox/http/request-log.js';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';
import { cpf } from '../../support/fixtures.js';
import { type Child, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';

let server: RunningServer;
const lines: string[] = [];

beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 32 } }, (line) => lines.push(line));
});
afterAll(() => server.close());

const auth = (key = server.sandbox.apiKey): Record<string, string> => ({ authorization: `Bearer ${key}` });
const withId = (id: string) => (e: RequestLogEntry): boolean => e.request_id === id;

/** Reads a feed until `done` holds of its entries (bounded), then stops it. */
async function readFeed(key: string, done: (entries: RequestLogEntry[]) => boolean, query = ''): Promise<RequestLogEntry[]> {
  const controller = new AbortController();
  const response = await fetch(`${server.url}/_sandbox/logs${query}`, { headers: auth(key), signal: controller.signal });
  expect(response.status).toBe(200);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const entries = (): RequestLogEntry[] =>
    text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as RequestLogEntry);
  const deadline = setTimeout(() => controller.abort(), 10_000);
  try {
    while (!done(entries())) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
    controller.abort();
  }
  return entries();
}

describe('a served request', () => {
  it('is recorded once, with the real time of its answer, read alike by the stderr line, the feed and the inspector', async () => {
    // The tenant's clock a year ahead: `at` does not follow it.
    const tenant = server.sandbox.createTenant();
    await tenant.clock.advance({ days: 365 });
    const before = Date.now();
    const answer = await fetch(`${server.url}/v1/users?limit=1`, { headers: auth(tenant.apiKey) });
    const after = Date.now();
    expect(answer.status).toBe(200);
    const id = answer.headers.get('x-request-id') as string;
    const recorded = server.requests.recent().filter(withId(id));
    expect(recorded).toHaveLength(1);
    const entry = recorded[0] as RequestLogEntry;
    expect(entry).toMatchObject({ method: 'GET', path: '/v1/users', status: 200, tenant_id: tenant.tenantId, replayed: false, fault: null });
    const at = Date.parse(entry.at);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    expect(Math.abs(tenant.clock.now().getTime() - at)).toBeGreaterThan(300 * 86_400_000);
    // The inspector reads the same entry, not a second record of its own.
    const inspected = server.sandbox.inspector.requests({ request_id: id });
    expect(inspected).toEqual([entry]);
    // The feed's backlog: the same entry, once.
    const fed = await readFeed(server.controlKey, (entries) => entries.some(withId(id)), '?backlog=1000');
    expect(fed.filter(withId(id))).toEqual([entry]);
    // The stderr line: once.
    expect(lines.filter((l) => l.endsWith(id))).toEqual([`GET /v1/users 200 ${entry.latency_ms.toFixed(1)}ms ${id}`]);
  });

  it('a HEAD is recorded as HEAD (the sandbox is asked a GET), with the method the client sent', async () => {
    const answer = await fetch(`${server.url}/v1/users`, { method: 'HEAD', headers: auth() });
    const id = answer.headers.get('x-request-id') as string;
    expect(server.requests.recent().filter(withId(id)).map((e) => `${e.method} ${e.status}`)).toEqual(['HEAD 200']);
  });
});

describe("the server's own refusals, before a tenant is known", () => {
  it('a refused preflight and bytes that are not HTTP: in the log once, without a tenant; the operator reads them, a tenant does not', async () => {
    const preflight = await fetch(`${server.url}/v1/users`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET', ...auth() } });
    expect(preflight.status).toBe(400);
    const preflightId = preflight.headers.get('x-request-id') as string;
    // Node's parser refuses it before any request exists (the clientError hook).
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1', () => socket.write('FOO /v1/users HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.setEncoding('utf8').on('data', (c: string) => (text += c));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    const rawId = (/x-request-id: (req_[0-9a-f]{32})/.exec(raw) as RegExpExecArray)[1] as string;
    const log = server.requests.recent();
    expect(log.filter(withId(preflightId))).toEqual([expect.objectContaining({ method: 'OPTIONS', path: '/v1/users', status: 400, tenant_id: null })]);
    expect(log.filter(withId(rawId))).toEqual([expect.objectContaining({ method: '-', path: '-', status: 400, tenant_id: null })]);
    expect(lines.filter((l) => l.endsWith(preflightId))).toHaveLength(1);
    expect(lines.filter((l) => l.endsWith(rawId))).toHaveLength(1);
    // The operator's feed has them; a tenant's key (the preflight carried it) does not see them.
    const operator = await readFeed(server.controlKey, (entries) => entries.some(withId(rawId)), '?backlog=1000');
    expect(operator.filter((e) => e.request_id === preflightId || e.request_id === rawId)).toHaveLength(2);
    const marker = await fetch(`${server.url}/v1/users?limit=1`, { headers: auth() });
    const markerId = marker.headers.get('x-request-id') as string;
    const own = await readFeed(server.sandbox.apiKey, (entries) => entries.some(withId(markerId)), '?backlog=1000');
    expect(own.some((e) => e.request_id === preflightId || e.request_id === rawId)).toBe(false);
  });
});

describe('the fork route on the listener', () => {
  it('takes a real tenant document over 1 MB, as the docs promise (up to 16 MiB)', async () => {
    const origin = createSandbox({ seed: 'fork-origin', quoteRateLimit: 0 });
    for (let i = 0; i < 750; i++) {
      const body = JSON.stringify({ external_id: `fork-${i}`, name: 'Ana Fork', document_type: 'cpf', document_number: cpf(i + 1) });
      const created = await origin.fetch('/v1/users', { method: 'POST', headers: { ...auth(origin.apiKey), 'content-type': 'application/json', 'idempotency-key': `u-${i}` }, body });
      expect(created.status).toBe(201);
    }
    const body = JSON.stringify({ snapshot: origin.exportTenant() });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1_300_000);
    const fork = await fetch(`${server.url}/v1/test_helpers/tenants`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'fork-1' }, body });
    expect(fork.status, await fork.clone().text()).toBe(201);
    const { api_key } = (await fork.json()) as { api_key: string };
    const users = (await (await fetch(`${server.url}/v1/users?limit=1`, { headers: auth(api_key) })).json()) as { data: unknown[] };
    expect(users.data).toHaveLength(1);
    await origin.close();
    // Every other route keeps the 1 MB limit.
    const big = await fetch(`${server.url}/v1/users`, { method: 'POST', headers: { ...auth(), 'content-type': 'application/json', 'idempotency-key': 'big' }, body });
    expect(big.status).toBe(400);
    expect(((await big.json()) as { details: unknown }).details).toEqual({ issues: [{ path: '', message: 'At most 1000000 bytes' }] });
  }, 30_000);
});

describe('logs tail', () => {
  afterEach(stopAll);

  it("prints the server's own refusal (no tenant) to the operator", async () => {
    const { ready } = await serve();
    const child: Child = run(['logs', 'tail', '--json'], { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: ready.control_key });
    await waitFor(child, () => (child.stderr().includes('tailing the request log') ? true : undefined), 'the subscription');
    const refused = await fetch(`${ready.url}/v1/users`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
    expect(refused.status).toBe(400);
    const id = refused.headers.get('x-request-id') as string;
    const line = await waitFor(child, () => child.stdout().split('\n').find((l) => l.includes(id)), 'the refusal');
    expect(JSON.parse(line)).toMatchObject({ request_id: id, method: 'OPTIONS', path: '/v1/users', status: 400, tenant_id: null, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    child.process.kill('SIGINT');
    expect(await exitCode(child)).toBe(0);
  });
});
