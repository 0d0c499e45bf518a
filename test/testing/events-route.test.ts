/**
 * GET /v1/test_helpers/events: the tenant's event log over HTTP (what the scenario builders read
 * to answer the events they caused): newest first, filters, cursors, tenancy, production 404.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { raw } from '../sandbox/raw.js';
import { cpf } from '../support/fixtures.js';

async function users(client: PixUsdt, n: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push((await client.users.create({ external_id: `e${i}`, name: 'Ana', document_type: 'cpf', document_number: cpf(i + 1) })).id);
  return ids;
}

describe('GET /v1/test_helpers/events', () => {
  it('answers the log of sandbox.events(), newest first, page by page', async () => {
    const sandbox = createSandbox({ seed: 3, now: '2026-01-01T00:00:00Z' });
    const client = new PixUsdt(sandbox.clientOptions());
    const ids = await users(client, 5);
    await client.testHelpers.users.kyc(ids[0] as string, { status: 'approved' });
    const first = await client.testHelpers.events.list({ limit: 4 });
    expect(first.data.map((e) => e.id)).toEqual(sandbox.events().slice(-4).reverse().map((e) => e.id));
    expect(first.next_cursor).toEqual(expect.any(String));
    const all = await client.testHelpers.events.list({ limit: 4 }).toArray({ max: 100 });
    expect(all.map((e) => e.id)).toEqual(sandbox.events().reverse().map((e) => e.id));
    expect(all[0]).toEqual(sandbox.events().at(-1));
  });

  it('filters by type and by object id; a cursor belongs to its filters', async () => {
    const sandbox = createSandbox({ seed: 4, now: '2026-01-01T00:00:00Z' });
    const client = new PixUsdt(sandbox.clientOptions());
    const [a, b] = (await users(client, 3)) as [string, string];
    await client.testHelpers.users.kyc(a, { status: 'approved' });
    const approved = await client.testHelpers.events.list({ type: 'user.kyc_approved' });
    expect(approved.data.map((e) => [e.type, e.data.object['id']])).toEqual([['user.kyc_approved', a]]);
    const ofB = await client.testHelpers.events.list({ object_id: b });
    expect(ofB.data.map((e) => e.type)).toEqual(['user.kyc_pending']);
    const page = await client.testHelpers.events.list({ type: 'user.kyc_pending', limit: 1 });
    expect(page.next_cursor).not.toBeNull();
    const other = await raw(sandbox, 'GET', `/v1/test_helpers/events?cursor=${page.next_cursor}`);
    expect([other.status, other.body.code]).toEqual([400, 'invalid_cursor']);
    const bad = await raw(sandbox, 'GET', '/v1/test_helpers/events?type=completed');
    expect([bad.status, bad.body.code, bad.body.details.issues[0].path]).toEqual([400, 'validation_error', 'type']);
  });

  it('shows a tenant its own events only; needs sandbox:control; 404 in production', async () => {
    const sandbox = createSandbox({ seed: 5 });
    const client = new PixUsdt(sandbox.clientOptions());
    await users(client, 1);
    const other = sandbox.createTenant();
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/events', undefined, { apiKey: other.apiKey })).body.data).toEqual([]);
    const limited = sandbox.createTenant({ capabilities: ['users:read'] });
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/events', undefined, { apiKey: limited.apiKey })).body.code).toBe('missing_capability');
    const production = createSandbox({ environment: 'production' });
    const answer = await raw(production, 'GET', '/v1/test_helpers/events', undefined, { apiKey: production.apiKey });
    expect([answer.status, answer.body.code]).toEqual([404, 'not_found']);
  });
});
