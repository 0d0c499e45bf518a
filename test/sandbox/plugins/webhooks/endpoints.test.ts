/**
 * Webhook endpoint CRUD and the deliveries list, through the public client.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../../src/sandbox/index.js';
import { RECEIVER, setup } from './helpers.js';
import { approvedUser } from '../../../support/fixtures.js';

describe('webhook endpoints', () => {
  it('creates an endpoint with its secret shown once, then never again', async () => {
    const { client } = setup();
    const created = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['conversion.completed', 'conversion.failed'], description: 'main' });
    expect(created).toMatchObject({ url: RECEIVER, status: 'active', event_types: ['conversion.completed', 'conversion.failed'], description: 'main' });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(created.secret.startsWith(created.secret_prefix)).toBe(true);
    expect(created.secret.endsWith(created.secret_last_four)).toBe(true);
    const fetched = await client.webhookEndpoints.retrieve(created.id);
    expect(fetched).not.toHaveProperty('secret');
    expect(JSON.stringify(fetched)).not.toContain(created.secret);
    const { secret: _secret, ...withoutSecret } = created;
    expect(fetched).toEqual(withoutSecret);
  });

  it.each(['http://partner.example/hook', 'http://127.0.0.1.example/hook', 'http://localhost.example/', 'http://[::2]/', 'ftp://127.0.0.1/'])(
    'refuses %s: https only, plain http for loopback receivers',
    async (url) => {
      const { client } = setup();
      await expect(client.webhookEndpoints.create({ url, event_types: ['*'] })).rejects.toMatchObject({ status: 400, code: 'validation_error' });
    },
  );

  it.each(['http://localhost:3000/webhooks', 'http://127.0.0.1:8080/hooks?x=1', 'http://[::1]/', 'HTTP://LOCALHOST'])(
    'the sandbox environment accepts the loopback receiver %s; production keeps https only',
    async (url) => {
      const { client } = setup();
      expect((await client.webhookEndpoints.create({ url, event_types: ['*'] })).url).toBe(url);
      const created = await client.webhookEndpoints.create({ url: 'https://p.example/hook', event_types: ['*'] });
      expect((await client.webhookEndpoints.update(created.id, { url })).url).toBe(url);
      const production = createSandbox({ environment: 'production' });
      const post = (path: string, method: string, body: unknown): Promise<Response> =>
        production.fetch(path, {
          method,
          headers: { authorization: `Bearer ${production.apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
          body: JSON.stringify(body),
        });
      const refused = await post('/v1/webhook_endpoints', 'POST', { url, event_types: ['*'] });
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ code: 'validation_error', details: { issues: [{ path: 'url', message: 'Expected an https:// URL' }] } });
      const live = (await (await post('/v1/webhook_endpoints', 'POST', { url: 'https://p.example/hook', event_types: ['*'] })).json()) as { id: string };
      const patched = await post(`/v1/webhook_endpoints/${live.id}`, 'PATCH', { url });
      expect(patched.status).toBe(400);
      expect(await patched.json()).toMatchObject({ details: { issues: [{ path: 'url' }] } });
    },
  );

  it('lists live endpoints newest first, paginated with cursors', async () => {
    const { client } = setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await client.webhookEndpoints.create({ url: `https://p${i}.example/hook`, event_types: ['*'] })).id);
    await client.webhookEndpoints.delete(ids[2] as string);
    const page = await client.webhookEndpoints.list({ limit: 2 });
    expect(page.data.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    expect(page.next_cursor).not.toBeNull();
    const all: string[] = [];
    for await (const e of client.webhookEndpoints.list({ limit: 2 })) all.push(e.id);
    expect(all).toEqual([ids[4], ids[3], ids[1], ids[0]]);
  });

  it('updates url, event types, description and status', async () => {
    const { sandbox, client } = setup();
    const created = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    await sandbox.clock.advance({ seconds: 10 });
    const updated = await client.webhookEndpoints.update(created.id, {
      url: 'https://other.example/hook',
      event_types: ['user.kyc_approved'],
      description: 'renamed',
      status: 'disabled',
    });
    expect(updated).toMatchObject({ url: 'https://other.example/hook', event_types: ['user.kyc_approved'], description: 'renamed', status: 'disabled' });
    expect(Date.parse(updated.updated_at) - Date.parse(updated.created_at)).toBe(10_000);
    expect((await client.webhookEndpoints.update(created.id, { description: null })).description).toBeNull();
  });

  it('deletes an endpoint: 200 { id, deleted: true }, then 404 webhook_endpoint_not_found', async () => {
    const { client } = setup();
    const created = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    expect(await client.webhookEndpoints.delete(created.id)).toEqual({ id: created.id, deleted: true });
    for (const call of [
      () => client.webhookEndpoints.retrieve(created.id),
      () => client.webhookEndpoints.update(created.id, { description: 'x' }),
      () => client.webhookEndpoints.delete(created.id),
      () => client.webhookEndpoints.rotateSecret(created.id),
      () => client.webhookEndpoints.listDeliveries(created.id),
    ]) {
      await expect(call()).rejects.toMatchObject({ status: 404, code: 'webhook_endpoint_not_found' });
    }
  });

  it("keeps tenants apart: another tenant's endpoint is not found", async () => {
    const sandbox = createSandbox({ seed: 'tenants', now: '2026-03-02T12:00:00Z' });
    const other = sandbox.createTenant();
    const { PixUsdt } = await import('../../../../src/index.js');
    const a = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const b = new PixUsdt({ apiKey: other.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const endpoint = await a.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    await expect(b.webhookEndpoints.retrieve(endpoint.id)).rejects.toMatchObject({ code: 'webhook_endpoint_not_found' });
    expect((await b.webhookEndpoints.list()).data).toEqual([]);
  });

  it('needs the webhooks capabilities', async () => {
    const sandbox = createSandbox({ seed: 'caps', now: '2026-03-02T12:00:00Z' });
    const limited = sandbox.createTenant({ capabilities: ['users:read'] });
    const { PixUsdt } = await import('../../../../src/index.js');
    const client = new PixUsdt({ apiKey: limited.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    await expect(client.webhookEndpoints.list()).rejects.toMatchObject({ status: 403, code: 'missing_capability' });
    await expect(client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] })).rejects.toMatchObject({ status: 403, code: 'missing_capability' });
  });
});

describe('the deliveries list', () => {
  it('lists the deliveries of an endpoint, filtered by status and event id', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    let n = 0;
    sandbox.webhooks.listen(RECEIVER, () => (++n === 2 ? 500 : 200));
    for (let i = 1; i <= 3; i++) await approvedUser(client, 20 + i);
    await sandbox.webhooks.flush();
    const all = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(all).toHaveLength(3);
    expect(all.map((d) => Date.parse(d.created_at))).toEqual([...all.map((d) => Date.parse(d.created_at))].sort((x, y) => y - x));
    const pending = (await client.webhookEndpoints.listDeliveries(endpoint.id, { status: 'pending' })).data;
    expect(pending).toHaveLength(1);
    expect(pending[0]?.response_status).toBe(500);
    expect((await client.webhookEndpoints.listDeliveries(endpoint.id, { status: 'succeeded' })).data).toHaveLength(2);
    const target = all[1]?.event_id as string;
    const byEvent = (await client.webhookEndpoints.listDeliveries(endpoint.id, { event_id: target })).data;
    expect(byEvent.map((d) => d.event_id)).toEqual([target]);
    const page = await client.webhookEndpoints.listDeliveries(endpoint.id, { limit: 2 });
    expect(page.data).toHaveLength(2);
    const rest = await client.webhookEndpoints.listDeliveries(endpoint.id, { limit: 2, cursor: page.next_cursor as string });
    expect(rest.data.map((d) => d.id)).toEqual([all[2]?.id]);
    expect(rest.next_cursor).toBeNull();
  });
});
