/**
 * Test helpers on `sandbox.webhooks`, the injectable transport, the duplicate and shuffled
 * test modes, and snapshot/restore of endpoints and deliveries.
 */
import { describe, expect, it, vi } from 'vitest';
import { type WebhookRequest, createSandbox } from '../../../../src/sandbox/index.js';
import { PixUsdt } from '../../../../src/index.js';
import { constructEvent } from '../../../../src/webhooks/index.js';
import { RECEIVER, setup } from './helpers.js';
import { approvedUser, onrampBody } from '../../../support/fixtures.js';

describe('test helpers', () => {
  it('nextEvent resolves with the next delivered event of a kind, including one delivered before the call', async () => {
    const { sandbox, client } = setup();
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    sandbox.webhooks.listen(RECEIVER, () => 200);
    const waiting = sandbox.webhooks.nextEvent('conversion.created');
    const userId = await approvedUser(client, 1);
    const conversion = await client.quotes.accept((await client.quotes.create(onrampBody(userId))).id);
    const event = await waiting;
    expect(event.type).toBe('conversion.created');
    expect((event.data.object as { id: string }).id).toBe(conversion.id);
    // Already delivered by now: still returned once, then consumed.
    const approved = await sandbox.webhooks.nextEvent('user.kyc_approved');
    expect((approved.data.object as { id: string }).id).toBe(userId);
    await expect(sandbox.webhooks.nextEvent('user.kyc_approved', { timeoutMs: 20 })).rejects.toThrow(/No user\.kyc_approved event/);
  });

  it('delivered() lists what receivers acknowledged, with filters', async () => {
    const { sandbox, client } = setup();
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    await client.webhookEndpoints.create({ url: 'https://second.example/hook', event_types: ['user.kyc_approved'] });
    sandbox.webhooks.listen(RECEIVER, () => 200);
    sandbox.webhooks.listen('https://second.example/hook', () => 404);
    await approvedUser(client, 2);
    await sandbox.webhooks.flush();
    const delivered = sandbox.webhooks.delivered();
    expect(delivered.length).toBe(sandbox.events().length);
    expect(new Set(delivered.map((d) => d.url))).toEqual(new Set([RECEIVER]));
    const approved = sandbox.webhooks.delivered({ type: 'user.kyc_approved' });
    expect(approved).toHaveLength(1);
    expect(approved[0]?.headers['X-Service-Event-Id']).toBe(approved[0]?.event.id);
    expect(sandbox.webhooks.delivered({ eventId: approved[0]?.event.id as string })).toHaveLength(1);
    // The 404 of the second receiver keeps its delivery pending.
    const pending = sandbox.webhooks.pending();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ url: 'https://second.example/hook', eventType: 'user.kyc_approved', attemptCount: 1 });
    expect(pending[0]?.lastError).toMatch(/404/);
    expect(() => sandbox.webhooks.assertNothingPending()).toThrow(/second\.example/);
  });
});

describe('the injectable transport', () => {
  it('sends every attempt through the given transport; a rejection is a transport error', async () => {
    const sent: WebhookRequest[] = [];
    let fail = true;
    const { sandbox, client } = setup({
      webhookTransport: async (request) => {
        sent.push(request);
        if (fail) throw new Error('connect ECONNREFUSED');
        return { status: 202 };
      },
    });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    await approvedUser(client, 3);
    await sandbox.webhooks.flush();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.url).toBe(RECEIVER);
    const event = await constructEvent(sent[0]?.body as string, sent[0]?.headers as Record<string, string>, endpoint.secret);
    expect(event.type).toBe('user.kyc_approved');
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(d).toMatchObject({ status: 'pending', response_status: null });
    expect(d?.last_error).toMatch(/ECONNREFUSED/);
    fail = false;
    await sandbox.clock.advance({ seconds: 30 });
    expect(sent).toHaveLength(2);
    expect(await client.webhookDeliveries.retrieve(d?.id as string)).toMatchObject({ status: 'succeeded', response_status: 202 });
  });

  it('never puts a secret in a delivery record', async () => {
    const { sandbox, client } = setup({ webhookTransport: () => Promise.reject(new Error('boom')) });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    await approvedUser(client, 4);
    await sandbox.clock.advance({ days: 2 });
    const list = await client.webhookEndpoints.listDeliveries(endpoint.id);
    expect(list.data.length).toBeGreaterThan(0);
    expect(JSON.stringify(list)).not.toContain(endpoint.secret);
    expect(JSON.stringify(sandbox.events())).not.toContain(endpoint.secret);
  });
});

describe('header names', () => {
  it('can be renamed, and constructEvent reads them with the same options', async () => {
    const { sandbox, client } = setup({ webhooks: { signatureHeader: 'Acme-Signature', eventIdHeader: 'Acme-Event-Id' } });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    const ids: string[] = [];
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      expect(request.headers.get('x-service-signature')).toBeNull();
      const event = await constructEvent(request, endpoint.secret, { now, signatureHeader: 'Acme-Signature', eventIdHeader: 'Acme-Event-Id' });
      expect(request.headers.get('acme-event-id')).toBe(event.id);
      ids.push(event.id);
    });
    await approvedUser(client, 40);
    await sandbox.webhooks.flush();
    expect(ids).toHaveLength(1);
    sandbox.webhooks.assertNothingPending();
  });
});

describe('test modes', () => {
  it('duplicates: every delivery reaches the receiver twice with the same event id and signature', async () => {
    const { sandbox, client } = setup({ webhooks: { duplicates: true } });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const got: Array<{ id: string; signature: string }> = [];
    const seen = new Set<string>();
    let dropped = 0;
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      got.push({ id: request.headers.get('x-service-event-id') as string, signature: request.headers.get('x-service-signature') as string });
      // A receiver that dedupes on the event id, as the reference asks.
      const event = await constructEvent(request, endpoint.secret, { now });
      if (seen.has(event.id)) dropped++;
      seen.add(event.id);
    });
    await approvedUser(client, 5);
    await sandbox.webhooks.flush();
    const events = sandbox.events();
    expect(got).toHaveLength(events.length * 2);
    for (let i = 0; i < got.length; i += 2) expect(got[i]).toEqual(got[i + 1]);
    expect(dropped).toBe(events.length);
    expect(sandbox.webhooks.delivered().filter((d) => d.duplicate)).toHaveLength(events.length);
    // The records count attempts, not copies.
    for (const d of (await client.webhookEndpoints.listDeliveries(endpoint.id)).data) expect(d.attempt_count).toBe(1);
  });

  it('shuffle: a batch arrives in a deterministic order that is not the order of the log', async () => {
    const order = async (): Promise<{ got: string[]; log: string[] }> => {
      const { sandbox, client } = setup({ webhooks: { shuffle: 'seed-1' } });
      await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
      const got: string[] = [];
      sandbox.webhooks.listen(RECEIVER, (request) => void got.push(request.headers.get('x-service-event-id') as string));
      const userId = await approvedUser(client, 6);
      const quote = await client.quotes.create(onrampBody(userId));
      const conversion = await client.quotes.accept(quote.id);
      await sandbox.webhooks.flush();
      got.length = 0;
      // One request that records several events: one batch.
      await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
      await sandbox.webhooks.flush();
      const log = sandbox.events().map((e) => e.id);
      return { got, log: log.slice(log.length - got.length) };
    };
    const first = await order();
    expect(first.got.length).toBeGreaterThanOrEqual(2);
    expect([...first.got].sort()).toEqual([...first.log].sort());
    expect(first.got).not.toEqual(first.log);
    const second = await order();
    expect(second.got).toEqual(first.got);
  });
});

describe('snapshot and restore', () => {
  it('carry endpoints, deliveries and pending retries', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    let status = 500;
    sandbox.webhooks.listen(RECEIVER, () => status);
    await approvedUser(client, 7);
    await sandbox.webhooks.flush();
    const snapshot = sandbox.snapshot();
    const before = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(before[0]?.status).toBe('pending');

    await sandbox.clock.advance({ seconds: 30 }); // the retry fails again
    sandbox.restore(snapshot);
    expect(await client.webhookEndpoints.retrieve(endpoint.id)).toMatchObject({ id: endpoint.id, url: RECEIVER });
    expect((await client.webhookEndpoints.listDeliveries(endpoint.id)).data).toEqual(before);
    status = 200;
    await sandbox.clock.advance({ seconds: 30 }); // the retry timer was re-created from the state
    const after = await client.webhookDeliveries.retrieve(before[0]?.id as string);
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });
});

describe('timers', () => {
  it('keeps delivering when the test turns on fake timers', async () => {
    const { sandbox, client } = setup();
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    let calls = 0;
    sandbox.webhooks.listen(RECEIVER, () => (++calls === 1 ? 500 : 200));
    vi.useFakeTimers();
    try {
      await approvedUser(client, 30);
      await sandbox.webhooks.flush();
      expect(calls).toBe(1);
      await sandbox.clock.advance({ seconds: 30 });
      expect(calls).toBe(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('works with a clock that follows real time', async () => {
    const sandbox = createSandbox({ seed: 'real-time' });
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    sandbox.webhooks.listen(RECEIVER, async (request) => {
      await constructEvent(request, endpoint.secret); // real time: the default `now` verifies
    });
    await approvedUser(client, 31);
    await sandbox.webhooks.flush();
    expect(sandbox.webhooks.delivered().length).toBe(sandbox.events().length);
    sandbox.webhooks.assertNothingPending();
  });
});
