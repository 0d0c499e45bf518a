// The inspection API and the console's handler, in process: what they show (and never show),
// actions through the public routes, the request log, search and the live stream.
import { describe, expect, it } from 'vitest';
import { Inspection } from '../../../src/sandbox/inspector/inspection.js';
import { internalsOf } from '../../../src/sandbox/sandbox.js';
import { setup as setupSandbox } from '../fixture.js';

// The inspector opens on first use (issue 22): a console mounted at set-up sees every request.
function setup(): ReturnType<typeof setupSandbox> {
  const f = setupSandbox();
  void f.sandbox.inspector;
  return f;
}

const base = 'http://localhost/_inspector/';

async function api<T>(f: ReturnType<typeof setupSandbox>, path: string, init?: RequestInit): Promise<{ status: number; body: T }> {
  const res = await f.sandbox.inspector.fetch(new Request(base + path, init));
  return { status: res.status, body: (await res.json()) as T };
}

describe('sandbox.inspector', () => {
  it('lists tenants default first, and shows key and secret prefixes only', async () => {
    const f = setup();
    const other = f.sandbox.createTenant();
    await f.client.webhookEndpoints.create({ url: 'https://example.com/hook', event_types: ['*'] });
    const tenants = f.sandbox.inspector.tenants();
    expect(tenants.map((t) => t.id)).toEqual([f.sandbox.tenantId, other.tenantId]);
    expect(tenants[0]?.default).toBe(true);
    const { status, body } = await api<Record<string, unknown>>(f, `api/tenants/${f.sandbox.tenantId}`);
    expect(status).toBe(200);
    const text = JSON.stringify(body);
    expect(text).not.toContain(f.sandbox.apiKey);
    expect(text).toContain(f.sandbox.apiKey.slice(0, 12));
    const snapshot = JSON.stringify(f.sandbox.snapshot());
    const secret = /"secret":"(whsec_[^"]+)"/.exec(snapshot)?.[1] ?? '';
    expect(secret.length).toBeGreaterThan(10);
    expect(text).not.toContain(secret);
    expect(text).toContain(secret.slice(0, 10));
  });

  it("draws a conversion's path, timeline, deliveries and requests; actions go through the public routes", async () => {
    const f = setup();
    const received: string[] = [];
    f.sandbox.webhooks.listen('https://example.com/hook', async (req) => void received.push(((await req.json()) as { type: string }).type));
    await f.client.webhookEndpoints.create({ url: 'https://example.com/hook', event_types: ['*'] });
    // A partner removing every `transition` listener does not blind the inspector.
    f.sandbox.on('transition', () => undefined);
    f.sandbox.off('transition');
    const conv = await f.conversion('onramp');
    const tenant = f.sandbox.tenantId;
    const done = await api<{ status: string }>(f, `api/tenants/${tenant}/actions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-inspector': '1' },
      body: JSON.stringify({ path: `/v1/test_helpers/conversions/${conv.id}/deposit`, body: { amount: conv.expected_source_amount, settle: true } }),
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('completed');
    await f.sandbox.webhooks.flush();
    const page = f.sandbox.inspector.conversion(tenant, conv.id);
    expect(page?.path_source).toBe('machine');
    expect(page?.path).toEqual(['awaiting_deposit', 'funded', 'completed']);
    expect(page?.timeline.map((s) => s.event?.type ?? null)).toEqual(['conversion.created', null, 'conversion.completed']);
    const completed = page?.timeline[2]?.deliveries[0];
    expect(completed?.status).toBe('succeeded');
    expect(completed?.attempts[0]?.status).toBe(200);
    expect(JSON.parse(completed?.payload ?? '{}').type).toBe('conversion.completed');
    expect(received).toContain('conversion.completed');
    const paths = page?.requests.map((r) => `${r.method} ${r.path}`) ?? [];
    expect(paths).toContain(`POST /v1/quotes/${conv.quote_id}/accept`);
    expect(paths).toContain(`POST /v1/test_helpers/conversions/${conv.id}/deposit`);
    // Search by an id the API shows.
    const after = await f.client.conversions.retrieve(conv.id);
    expect(f.sandbox.inspector.search(after.pix_e2e_id ?? 'none')).toEqual([{ kind: 'conversion', tenant_id: tenant, id: conv.id, conversion_id: conv.id, field: 'pix_e2e_id' }]);
    const requestId = page?.requests[0]?.request_id ?? '';
    expect(f.sandbox.inspector.search(requestId)[0]).toMatchObject({ kind: 'request', conversion_id: conv.id });
  });

  it('refuses actions outside the console routes, without the console header, and every write to the read API', async () => {
    const f = setup();
    const tenant = f.sandbox.tenantId;
    const post = (body: unknown, headers: Record<string, string> = { 'x-inspector': '1' }) =>
      api<{ code: string }>(f, `api/tenants/${tenant}/actions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect((await post({ path: '/v1/api-keys' })).status).toBe(400);
    // Issue 21: exactly the documented actions. Not a new tenant (a whole sk_test_ key in the
    // answer), not the limits or timings, not another method, not a query string.
    const keysBefore = f.sandbox.inspector.tenants().length;
    for (const [method, path, body] of [
      ['POST', '/v1/test_helpers/tenants', {}],
      ['POST', '/v1/test_helpers/limits', { user: { daily: '1.00' } }],
      ['POST', '/v1/test_helpers/settings', { quote_ttl_seconds: 1 }],
      ['POST', '/v1/test_helpers/conversions/x/simulate-onramp-pix-paid', {}],
      ['POST', '/v1/test_helpers/transactions/x/pay', {}],
      ['POST', '/v1/api-keys/x/rotate', {}],
      ['POST', '/v1/webhook_endpoints', { url: 'https://example.com', event_types: ['*'] }],
      ['DELETE', '/v1/test_helpers/faults', undefined],
      ['POST', '/v1/test_helpers/price?x=1', {}],
      ['POST', '/v1/test_helpers/clock/advance/extra', { seconds: 1 }],
    ] as const) {
      const refused = await post({ method, path, body });
      expect(refused.status, `${method} ${path}`).toBe(400);
      expect(refused.body).toMatchObject({ code: 'validation_error', request_id: expect.stringMatching(/^req_[0-9a-f]{32}$/) });
    }
    expect(f.sandbox.inspector.tenants().length).toBe(keysBefore);
    expect(f.sandbox.limits.user.daily).toBe('50000.00');
    expect(f.sandbox.timings.quoteTtlSeconds).toBe(300);
    expect((await post({ path: '/v1/test_helpers/clock/advance', body: { seconds: 1 } }, {})).status).toBe(403);
    expect((await api(f, `api/tenants/${tenant}`, { method: 'DELETE' })).status).toBe(405);
    expect((await api(f, 'api/tenants/nope')).status).toBe(404);
    const before = f.sandbox.clock.now().getTime();
    expect((await post({ path: '/v1/test_helpers/clock/advance', body: { seconds: 60 } })).status).toBe(200);
    expect(f.sandbox.clock.now().getTime()).toBe(before + 60_000);
  });

  it('keeps a request log with replays and faults, filtered by status, path and request id', async () => {
    const f = setup();
    const headers = { authorization: `Bearer ${f.sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k1' };
    const body = JSON.stringify({ external_id: 'x', name: 'A B', document_type: 'cpf', document_number: '52998224725' });
    await f.sandbox.fetch('/v1/users', { method: 'POST', headers, body });
    await f.sandbox.fetch('/v1/users', { method: 'POST', headers, body });
    f.sandbox.faults.add({ match: 'GET /v1/users', times: 1, fault: { type: 'error', code: 'internal_error' } });
    const faulted = await f.sandbox.fetch('/v1/users', { headers });
    await f.sandbox.fetch('/v1/nowhere', { headers });
    const seen: string[] = [];
    const stop = f.sandbox.inspector.onRequest((r) => seen.push(`${r.status} ${r.path}`));
    await f.sandbox.fetch('/v1/nowhere', { headers });
    stop();
    await f.sandbox.fetch('/v1/nowhere', { headers });
    expect(seen).toEqual(['404 /v1/nowhere']);
    const log = f.sandbox.inspector.requests();
    expect(log[0]?.path).toBe('/v1/nowhere');
    expect(log.filter((r) => r.replayed)).toHaveLength(1);
    expect(log.find((r) => r.request_id === faulted.headers.get('x-request-id'))?.fault).toMatch(/\S/);
    expect(f.sandbox.inspector.requests({ status: '4xx' }).map((r) => r.status)).toEqual([404, 404, 404]);
    expect(f.sandbox.inspector.requests({ status: '500' })).toHaveLength(1);
    expect(f.sandbox.inspector.requests({ path: 'nowhere' })).toHaveLength(3);
    expect(f.sandbox.inspector.requests({ request_id: faulted.headers.get('x-request-id') ?? '' })).toHaveLength(1);
  });

  it('streams new requests and state changes as server-sent events', async () => {
    const f = setup();
    const controller = new AbortController();
    const res = await f.sandbox.inspector.fetch(new Request(`${base}api/stream`, { signal: controller.signal }));
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await f.conversion('offramp');
    let text = '';
    while (!text.includes('event: state')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain('event: request');
    expect(text).toMatch(/"to":"awaiting_deposit"/);
    controller.abort();
  });

  it('serves the page and its bundled script (no CDN)', async () => {
    const f = setup();
    const page = await f.sandbox.inspector.fetch(new Request(base));
    expect(await page.text()).toContain('<script src="app.js">');
    const script = await (await f.sandbox.inspector.fetch(new Request(`${base}app.js`))).text();
    expect(script.length).toBeGreaterThan(5000);
    expect(script).not.toMatch(/https?:\/\/(cdn|unpkg|esm\.sh)/);
    expect((await f.sandbox.inspector.fetch(new Request('http://localhost/v1/users'))).status).toBe(404);
  });
});

describe('the price form', () => {
  it("is offered exactly when the sandbox has the price helper route, and reads the tenant's own feed without a request", async () => {
    const f = setup();
    const other = f.sandbox.createTenant();
    other.settings.setPrice({ midRate: '6.25' });
    const route = await f.sandbox.fetch('/v1/test_helpers/price', { headers: { authorization: `Bearer ${f.sandbox.apiKey}` } });
    const before = f.sandbox.inspector.requests().length;
    const price = await api<{ mid_rate?: string }>(f, `api/tenants/${f.sandbox.tenantId}/price`);
    expect(price.status).toBe(route.status === 200 ? 200 : 404);
    expect(price.body.mid_rate).toBe('5.40');
    expect((await api<{ mid_rate?: string }>(f, `api/tenants/${other.tenantId}/price`)).body.mid_rate).toBe('6.25');
    expect((await api(f, 'api/tenants/nope/price')).status).toBe(404);
    expect(f.sandbox.inspector.requests().length).toBe(before);
  });
});

describe("a tenant's settings (issue 21)", () => {
  it('shows what is in force for that tenant and which fields it set itself', async () => {
    const f = setup();
    const other = f.sandbox.createTenant();
    other.settings.setLimits({ user: { daily: '10.00' } });
    other.settings.setTimings({ quoteTtlSeconds: 30 });
    const mine = f.sandbox.inspector.tenant(f.sandbox.tenantId).settings;
    const theirs = f.sandbox.inspector.tenant(other.tenantId).settings;
    expect(mine).toMatchObject({ price: { mid_rate: '5.40' }, limits: { user: { daily: '50000.00' }, platform_scope: 'tenant' }, timings: { quote_ttl_seconds: 300 }, changed: [] });
    expect(theirs).toMatchObject({ limits: { user: { daily: '10.00', monthly: '200000.00' } }, timings: { quote_ttl_seconds: 30, deposit_window_seconds: 900 } });
    expect(theirs.changed).toEqual(['limits.user.daily', 'timings.quote_ttl_seconds']);
  });
});

describe('a failing receiver', () => {
  it('shows the status it answered, the attempts and the next retry, then the redelivery', async () => {
    const f = setup();
    let answer = 500;
    f.sandbox.webhooks.listen('https://example.com/down', () => answer);
    await f.client.webhookEndpoints.create({ url: 'https://example.com/down', event_types: ['conversion.created'] });
    const conv = await f.conversion('offramp');
    await f.sandbox.webhooks.flush();
    const created = f.sandbox.inspector.conversion(f.sandbox.tenantId, conv.id)?.timeline[0]?.deliveries[0];
    expect(created?.status).toBe('pending');
    expect(created?.attempts.map((a) => a.status)).toEqual([500]);
    expect(created?.next_attempt_at).toBe(new Date(f.sandbox.clock.now().getTime() + 30_000).toISOString());
    answer = 200;
    await f.sandbox.clock.advance({ seconds: 30 });
    const after = f.sandbox.inspector.conversion(f.sandbox.tenantId, conv.id)?.timeline[0]?.deliveries[0];
    expect(after?.status).toBe('succeeded');
    expect(after?.attempts.map((a) => a.status)).toEqual([500, 200]);
    expect(after?.next_attempt_at).toBeNull();
  });
});

describe('an inspector nobody opened (issue 22)', () => {
  it('records nothing until its first use, then sees requests and moves live; a path from before is rebuilt from the event log', async () => {
    const f = setupSandbox();
    const before = await f.conversion('offramp');
    const inspector = f.sandbox.inspector;
    expect(inspector.requests()).toEqual([]);
    const early = inspector.conversion(f.sandbox.tenantId, before.id);
    expect(early?.path_source).toBe('events');
    expect(early?.path).toEqual(['awaiting_deposit']);
    const after = await f.conversion('offramp');
    await f.client.testHelpers.conversions.simulateOfframpDeposit(after.id, { settle: true });
    const page = inspector.conversion(f.sandbox.tenantId, after.id);
    expect(page?.path_source).toBe('machine');
    expect(page?.path).toEqual(['awaiting_deposit', 'funded', 'completed']);
    expect(inspector.requests().map((r) => `${r.method} ${r.path}`)).toContain(`POST /v1/test_helpers/conversions/${after.id}/simulate-offramp-deposit`);
  });
});

describe("the inspector's bounded history of moves", () => {
  it('keeps the latest conversions that moved, a conversion that moves again among them, and draws the dropped ones from the event log', async () => {
    const f = setupSandbox();
    const { platform, app, webhooks } = internalsOf(f.sandbox)!;
    // Two generations of two conversions each: the older one is dropped whole when the newer fills.
    const inspection = new Inspection({ platform, requests: app.requests, webhooks: webhooks.records, historyMax: 4 });
    const tenant = f.sandbox.tenantId;
    const a = await f.conversion('offramp');
    const b = await f.conversion('offramp');
    const c = await f.conversion('offramp'); // the first generation (a, b) becomes the older one
    await f.client.testHelpers.conversions.simulateOfframpDeposit(a.id, { settle: true }); // a comes along into the newer
    const d = await f.conversion('offramp'); // the newer (c, a) becomes the older; b is dropped
    expect(inspection.historySize).toBe(3);
    expect(inspection.conversion(tenant, a.id)?.path_source).toBe('machine');
    expect(inspection.conversion(tenant, a.id)?.path).toEqual(['awaiting_deposit', 'funded', 'completed']);
    for (const kept of [c, d]) expect(inspection.conversion(tenant, kept.id)?.path_source).toBe('machine');
    const dropped = inspection.conversion(tenant, b.id);
    expect(dropped?.path_source).toBe('events');
    expect(dropped?.path).toEqual(['awaiting_deposit']);
  });
});
