// The receiver kit's handler, apart from its store: configuration, secrets during a rotation, the
// raw body, confirm (fetch-after-notify). What each store must do (duplicates, failures, races,
// the time limit) is the shared store suite: test/webhooks/receiver/store-suite.ts.
import { describe, expect, it, vi } from 'vitest';
import { createWebhookHandler } from '../../src/webhooks/receiver/index.js';
import { OTHER_SECRET, SECRET } from './helpers.js';
import { delivery, eventBody, eventId, signedHeaders } from './receiver-helpers.js';

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

describe('createWebhookHandler: configuration and input', () => {
  it('refuses to start without a secret, an onEvent, or a client for confirm', () => {
    expect(() => createWebhookHandler({ secret: '', onEvent: () => undefined })).toThrow(/endpoint secret/);
    expect(() => createWebhookHandler({ secret: SECRET } as never)).toThrow(/onEvent/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, confirm: true })).toThrow(/client/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, leaseMs: 0 })).toThrow(/leaseMs/);
    // The time limit must end before the lease does, or a live handler's claim could be taken over.
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, onEventTimeoutMs: 0 })).toThrow(/onEventTimeoutMs/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, leaseMs: 5_000, onEventTimeoutMs: 5_000 })).toThrow(/below leaseMs \(5000\)/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, leaseMs: 1_000 })).not.toThrow();
  });

  it('accepts any of several secrets (a rotation)', async () => {
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secrets: [OTHER_SECRET, SECRET], onEvent });
    expect((await handler(await delivery())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('answers a parsed body 500 (misconfigured: the platform retries once the route is fixed), a GET 405, a huge body 413', async () => {
    const errors: unknown[] = [];
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secret: SECRET, onEvent, maxBodyBytes: 2048, onError: (e) => errors.push(e) });
    const id = eventId();
    const parsed = await handler.handle({ body: JSON.parse(eventBody(id)), headers: await signedHeaders(eventBody(id), id) });
    expect(parsed).toMatchObject({ status: 500, outcome: 'misconfigured', reason: 'parsed_body' });
    expect(errors).toHaveLength(1);
    expect((await handler(new Request('https://p.example/wh'))).status).toBe(405);
    const huge = eventBody(id, 'conversion.completed', { pad: 'x'.repeat(4096) });
    const tooLarge = await handler(new Request('https://p.example/wh', { method: 'POST', body: huge, headers: await signedHeaders(huge, id) }));
    expect(tooLarge.status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
  });
});

describe('confirm: true (fetch-after-notify)', () => {
  const fresh = { id: 'c0000000-0000-4000-8000-000000000001', status: 'completed', received_amount: '10.00' };

  function client(overrides: Partial<Record<'conversion' | 'transaction' | 'user', () => Promise<unknown>>> = {}) {
    const calls: string[] = [];
    const read = (kind: 'conversion' | 'transaction' | 'user') => (id: string) => {
      calls.push(`${kind}:${id}`);
      return (overrides[kind] ?? (() => Promise.resolve({ ...fresh, id })))() as Promise<never>;
    };
    return { calls, client: { conversions: { retrieve: read('conversion') }, transactions: { retrieve: read('transaction') }, users: { retrieve: read('user') } } };
  }

  it('reads the resource back before onEvent, by the kind of the event', async () => {
    const { calls, client: c } = client();
    const resources: unknown[] = [];
    const handler = createWebhookHandler({ secret: SECRET, confirm: true, client: c, onEvent: (_e, { resource }) => void resources.push(resource) });
    await handler(await delivery(eventId(), 'conversion.standby', { id: 'conv-1' }));
    await handler(await delivery(eventId(), 'transaction.sending_pix', { id: 'conv-2' }));
    await handler(await delivery(eventId(), 'transaction.completed', { id: 'tx-1' }));
    await handler(await delivery(eventId(), 'user.kyc_approved', { id: 'user-1' }));
    await handler(await delivery(eventId(), 'loyalty.points_added', { id: 'x-1' }));
    expect(calls).toEqual(['conversion:conv-1', 'conversion:conv-2', 'transaction:tx-1', 'user:user-1']);
    expect(resources).toEqual([{ ...fresh, id: 'conv-1' }, { ...fresh, id: 'conv-2' }, { ...fresh, id: 'tx-1' }, { ...fresh, id: 'user-1' }, undefined]);
  });

  it('gives null for a resource the platform no longer has, and answers 503 (released) when the read fails', async () => {
    let fail = true;
    const { client: c } = client({
      user: () => Promise.reject(Object.assign(new Error('not found'), { status: 404 })),
      conversion: () => (fail ? Promise.reject(new TypeError('fetch failed')) : Promise.resolve(fresh)),
    });
    const resources: unknown[] = [];
    const handler = createWebhookHandler({ secret: SECRET, confirm: true, client: c, onEvent: (_e, { resource }) => void resources.push(resource) });
    expect((await handler(await delivery(eventId(), 'user.kyc_approved', { id: 'gone' }))).status).toBe(200);
    expect(resources).toEqual([null]);
    const id = eventId();
    const first = await handler(await delivery(id));
    expect(first.status).toBe(503);
    expect(await json(first)).toEqual({ error: 'confirm_failed' });
    fail = false;
    expect((await handler(await delivery(id))).status).toBe(200);
    expect(resources).toEqual([null, fresh]);
  });
});
