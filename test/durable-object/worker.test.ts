/**
 * The Worker of `pix-usdt/durable-object` in process (test/support/durable-objects.ts): its key
 * refusals are the sandbox's own, answer for answer, and the operator's views open to the
 * operator's token only. The same code runs on workerd from the tarball in
 * test/package/durable-object.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import worker from '../../src/durable-object/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { inProcessDeployment } from '../support/durable-objects.js';

const TOKEN = 'operator-token-in-process';
const { env, settled } = inProcessDeployment({ CONTROL_TOKEN: TOKEN });
const sandbox = createSandbox();
afterAll(() => sandbox.close());

const call = (path: string, authorization?: string, init: RequestInit = {}) =>
  worker.fetch(new Request(`https://sandbox.example${path}`, { ...init, headers: { ...(authorization === undefined ? {} : { authorization }), ...(init.headers as Record<string, string>) } }), env);

async function shape(response: Response): Promise<{ status: number; code: unknown; message: unknown; requestId: boolean }> {
  const body = (await response.json()) as { code: unknown; message: unknown; request_id: unknown };
  return { status: response.status, code: body.code, message: body.message, requestId: body.request_id === response.headers.get('x-request-id') };
}

async function operatorTenant(): Promise<{ tenantId: string; apiKey: string }> {
  const made = await call('/v1/test_helpers/tenants', `Bearer ${TOKEN}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(made.status).toBe(201);
  const body = (await made.json()) as { tenant_id: string; api_key: string };
  return { tenantId: body.tenant_id, apiKey: body.api_key };
}

describe('the Worker in process', () => {
  it.each([
    ['no key', undefined],
    ['not a bearer', 'Basic abc'],
    ['a malformed key', 'Bearer sk_test_short'],
    ['an unknown key', `Bearer sk_test_${'a'.repeat(32)}`],
    ["a key of the other environment", `Bearer sk_live_${'b'.repeat(32)}`],
  ])('refuses %s exactly as the sandbox does', async (_, authorization) => {
    const headers = authorization === undefined ? {} : { authorization };
    const expected = await shape(await sandbox.fetch('/v1/users', { headers }));
    expect(expected.status).toBe(401);
    expect(await shape(await call('/v1/users', authorization))).toEqual(expected);
    // The creation route too (it reads the caller's key before making anything).
    expect(await shape(await call('/v1/test_helpers/tenants', authorization, { method: 'POST', body: '{}' }))).toEqual(expected);
  });

  it('routes a key to its tenant, and opens the operator views to the operator only', async () => {
    const a = await operatorTenant();
    const b = await operatorTenant();
    expect((await call('/v1/users', `Bearer ${a.apiKey}`)).status).toBe(200);
    expect((await call('/v1/users', `Bearer ${b.apiKey}`)).status).toBe(200);

    const listing = await call('/_sandbox/tenants', `Bearer ${TOKEN}`);
    const ids = ((await listing.json()) as { data: Array<{ tenant_id: string }> }).data.map((t) => t.tenant_id);
    expect(ids).toEqual(expect.arrayContaining([a.tenantId, b.tenantId]));
    const page = await call('/_sandbox/tenants?limit=1', `Bearer ${TOKEN}`);
    const first = (await page.json()) as { data: unknown[]; next_cursor: string | null };
    expect(first.data).toHaveLength(1);
    const rest = (await (await call(`/_sandbox/tenants?cursor=${first.next_cursor}`, `Bearer ${TOKEN}`)).json()) as { data: Array<{ tenant_id: string }> };
    expect(rest.data.map((t) => t.tenant_id)).not.toContain((first.data[0] as { tenant_id: string }).tenant_id);

    const summaries = (await (await call('/_inspector/api/tenants', `Bearer ${TOKEN}`)).json()) as Array<{ id: string; default: boolean }>;
    expect(summaries.map((s) => s.id)).toEqual(expect.arrayContaining([a.tenantId, b.tenantId]));
    expect(summaries.every((s) => !s.default)).toBe(true);
    const one = await call(`/_inspector/api/tenants/${a.tenantId}`, `Bearer ${TOKEN}`);
    expect(((await one.json()) as { id: string }).id).toBe(a.tenantId);
    const requests = (await (await call(`/_inspector/api/requests`, `Bearer ${TOKEN}`)).json()) as Array<{ tenant_id: string; path: string }>;
    expect(requests.some((r) => r.tenant_id === a.tenantId && r.path === '/v1/users')).toBe(true);
    // The page loads for anyone (it holds no data); its API does not.
    expect((await call('/_inspector/')).status).toBe(200);
    for (const path of ['/_sandbox/tenants', '/_inspector/api/tenants', `/_inspector/api/tenants/${a.tenantId}`, '/_inspector/api/requests']) {
      for (const authorization of [undefined, `Bearer ${a.apiKey}`, 'Bearer ']) {
        const refused = await call(path, authorization);
        expect(refused.status, `${path} ${authorization}`).toBe(401);
        expect(JSON.stringify(await refused.json())).not.toContain(a.tenantId);
      }
    }
    // An action through a tenant's inspector, routed to its object (the tenant's own key added there).
    const action = await call(`/_inspector/api/tenants/${a.tenantId}/actions`, `Bearer ${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-inspector': '1' },
      body: JSON.stringify({ path: '/v1/test_helpers/clock/advance', body: { seconds: 60 } }),
    });
    expect(action.status).toBe(200);
    // The operator's feed across a page of tenants: both tenants' lines, merged.
    const merged = await call('/_sandbox/logs?backlog=20', `Bearer ${TOKEN}`);
    const reader = merged.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!(text.includes(`"tenant_id":"${a.tenantId}"`) && text.includes(`"tenant_id":"${b.tenantId}"`))) text += (await reader.read()).value ?? '';
    await reader.cancel();
    // A tenant's key reads its own log feed, through its object; the operator's a chosen tenant's.
    const own = await call('/_sandbox/logs?backlog=5', `Bearer ${a.apiKey}`);
    expect(own.headers.get('content-type')).toBe('text/event-stream');
    await own.body?.cancel();
    expect((await call('/_sandbox/logs', 'Bearer sk_test_short')).status).toBe(401);
    await settled();
  });

  it('answers nothing for the operator when no token is set', async () => {
    const bare = inProcessDeployment({});
    const request = new Request('https://sandbox.example/_inspector/api/tenants', { headers: { authorization: 'Bearer ' } });
    expect((await worker.fetch(request, bare.env)).status).toBe(401);
    const create = new Request('https://sandbox.example/v1/test_helpers/tenants', { method: 'POST', headers: { authorization: 'Bearer ' }, body: '{}' });
    expect((await worker.fetch(create, bare.env)).status).toBe(401);
  });
});
