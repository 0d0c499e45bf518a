/**
 * Webhook delivery through the public client: every recorded event reaches a subscribed
 * in-process receiver, signed, and verifies with `pix-usdt/webhooks`; retries on the virtual
 * clock; redelivery; secret rotation.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookTransport } from '../../../../src/sandbox/index.js';
import { constructEvent, isWebhookVerificationError, verifySignature } from '../../../../src/webhooks/index.js';
import { RECEIVER, setup } from './helpers.js';
import { approvedUser, onrampBody, userBody } from '../../../support/fixtures.js';

describe('delivery to an in-process receiver', () => {
  it('delivers one verified event per visible transition, in the order of the log', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const verified: Array<{ id: string; type: string }> = [];
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      const event = await constructEvent(request, endpoint.secret, { now });
      verified.push({ id: event.id, type: event.type });
      return 204;
    });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onrampBody(userId));
    const conversion = await client.quotes.accept(quote.id);
    await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
    await sandbox.webhooks.flush();

    const recorded = sandbox.events().map((e) => ({ id: e.id, type: e.type }));
    expect(recorded.length).toBeGreaterThanOrEqual(4);
    expect(verified).toEqual(recorded);
    const types = verified.map((e) => e.type);
    expect(types).toContain('user.kyc_approved');
    expect(types).toContain('conversion.created');
    expect(types).toContain('conversion.completed');
    sandbox.webhooks.assertNothingPending();

    // One delivery record per event, each succeeded at its first attempt with the receiver's status.
    const deliveries = [];
    for await (const d of client.webhookEndpoints.listDeliveries(endpoint.id)) deliveries.push(d);
    expect(deliveries.map((d) => d.event_id).sort()).toEqual(recorded.map((e) => e.id).sort());
    for (const d of deliveries) {
      expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1, response_status: 204, last_error: null, next_attempt_at: null });
      expect(d.attempts[0]?.response_status).toBe(204);
    }
  });

  it('sends the DESIGN headers and a body that is the event envelope', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    const seen: Request[] = [];
    sandbox.webhooks.listen(RECEIVER, (request) => {
      seen.push(request.clone());
    });
    await approvedUser(client, 2);
    await sandbox.webhooks.flush();
    expect(seen).toHaveLength(1); // only the subscribed kind
    const request = seen[0] as Request;
    const body = await request.text();
    const event = JSON.parse(body) as { id: string; type: string; created_at: string; data: { object: { kyc_status: string } } };
    expect(event.type).toBe('user.kyc_approved');
    expect(event.data.object.kyc_status).toBe('approved');
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('application/json');
    expect(request.headers.get('x-service-event-id')).toBe(event.id);
    expect(request.headers.get('user-agent')).toMatch(/pix-usdt-sandbox/);
    const signature = request.headers.get('x-service-signature') as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    // Signed with the real time of sending (the sandbox clock is frozen in 2026-01): it verifies at the defaults.
    const t = await verifySignature(body, signature, endpoint.secret);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(60);
    expect(t).not.toBe(Math.floor(Date.parse(event.created_at) / 1000));
  });

  it('does not deliver to disabled or deleted endpoints, nor events of kinds not subscribed', async () => {
    const { sandbox, client } = setup();
    const a = await client.webhookEndpoints.create({ url: 'https://a.example/hook', event_types: ['conversion.created'] });
    const b = await client.webhookEndpoints.create({ url: 'https://b.example/hook', event_types: ['*'] });
    const got: string[] = [];
    sandbox.webhooks.listen('https://a.example/hook', () => void got.push('a'));
    sandbox.webhooks.listen('https://b.example/hook', () => void got.push('b'));
    await client.webhookEndpoints.update(b.id, { status: 'disabled' });
    await approvedUser(client, 3);
    await sandbox.webhooks.flush();
    expect(got).toEqual([]);
    await client.webhookEndpoints.update(b.id, { status: 'active' });
    await client.webhookEndpoints.delete(a.id);
    await approvedUser(client, 4);
    await sandbox.webhooks.flush();
    expect(got.length).toBeGreaterThan(0);
    expect(new Set(got)).toEqual(new Set(['b']));
  });
});

describe('retries on the virtual clock', () => {
  it('retries a 500 after 30 s of virtual time, then records the success', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    let calls = 0;
    const receivedIds: string[] = [];
    sandbox.webhooks.listen(RECEIVER, (request) => {
      receivedIds.push(request.headers.get('x-service-event-id') as string);
      return ++calls === 1 ? 500 : 200;
    });
    await approvedUser(client, 5);
    await sandbox.webhooks.flush();
    const [first] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(first).toMatchObject({ status: 'pending', attempt_count: 1, response_status: 500 });
    expect(first?.last_error).toMatch(/500/);
    const createdAt = Date.parse(first?.created_at as string);
    expect(Date.parse(first?.next_attempt_at as string) - createdAt).toBe(30_000);

    await sandbox.clock.advance({ seconds: 29 });
    expect(calls).toBe(1);
    await sandbox.clock.advance({ seconds: 1 });
    expect(calls).toBe(2);
    const after = await client.webhookDeliveries.retrieve(first?.id as string);
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 2, response_status: 200, next_attempt_at: null });
    expect(after.attempts.map((a) => a.response_status)).toEqual([500, 200]);
    expect(after.attempts.map((a) => Date.parse(a.attempted_at) - createdAt)).toEqual([0, 30_000]);
    expect(new Set(receivedIds).size).toBe(1); // the same event id both times
    sandbox.webhooks.assertNothingPending();
  });

  it('follows the schedule (30 s, 2 min, 10 min, 1 h, 6 h, 24 h) and then gives up (dead letter)', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    sandbox.webhooks.listen(RECEIVER, () => 503);
    await approvedUser(client, 6);
    await sandbox.clock.advance({ days: 2 });
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(d).toMatchObject({ status: 'failed', attempt_count: 7, response_status: 503, next_attempt_at: null });
    const t0 = Date.parse(d?.created_at as string);
    expect(d?.attempts.map((a) => (Date.parse(a.attempted_at) - t0) / 1000)).toEqual([0, 30, 150, 750, 4_350, 25_950, 112_350]);
    expect((await client.webhookEndpoints.listDeliveries(endpoint.id, { status: 'failed' })).data).toHaveLength(1);
    sandbox.webhooks.assertNothingPending();
  });

  it('records a transport error when nobody listens, and retries it', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    await approvedUser(client, 7);
    await sandbox.webhooks.flush();
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, response_status: null });
    expect(d?.last_error).toMatch(/No receiver registered/);
    expect(() => sandbox.webhooks.assertNothingPending()).toThrow(/^1 webhook delivery is pending:\n- \S+: user\.kyc_approved \(event \S+\) to \S+, 1 attempt, last error: /);
    sandbox.webhooks.listen(RECEIVER, () => 200);
    await sandbox.clock.advance({ seconds: 30 });
    expect((await client.webhookDeliveries.retrieve(d?.id as string)).status).toBe('succeeded');
    sandbox.webhooks.assertNothingPending();
  });
});

describe('redeliver', () => {
  it('sends the same event id again as a new attempt of the same delivery', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    const ids: string[] = [];
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      ids.push((await constructEvent(request, endpoint.secret, { now })).id);
    });
    await approvedUser(client, 8);
    await sandbox.webhooks.flush();
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    await sandbox.clock.advance({ minutes: 5 });
    const queued = await client.webhookDeliveries.redeliver(d?.id as string);
    expect(queued).toMatchObject({ id: d?.id, status: 'pending', attempt_count: 1 });
    await sandbox.webhooks.flush();
    expect(ids).toEqual([d?.event_id, d?.event_id]);
    const after = await client.webhookDeliveries.retrieve(d?.id as string);
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(Date.parse(after.attempts[1]?.attempted_at as string) - Date.parse(after.attempts[0]?.attempted_at as string)).toBe(300_000);
  });

  it('answers 404 webhook_delivery_not_found for an unknown delivery', async () => {
    const { client } = setup();
    await expect(client.webhookDeliveries.redeliver('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'webhook_delivery_not_found',
    });
    await expect(client.webhookDeliveries.retrieve('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'webhook_delivery_not_found',
    });
  });
});

describe('rotate_secret', () => {
  it('signs with both secrets during the grace period, then with the new one only', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_approved'] });
    const received: Array<{ body: string; signature: string; now: Date }> = [];
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      received.push({ body: await request.text(), signature: request.headers.get('x-service-signature') as string, now });
    });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { grace_period_seconds: 3_600 });
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/);
    expect(rotated.secret).not.toBe(endpoint.secret);
    expect(Date.parse(rotated.previous_secret_expires_at as string) - sandbox.clock.now().getTime()).toBe(3_600_000);
    expect(rotated.secret_last_four).toBe(rotated.secret.slice(-4));

    await approvedUser(client, 9);
    await sandbox.webhooks.flush();
    const during = received.at(-1) as { body: string; signature: string; now: Date };
    expect(during.signature.match(/v1=/g)).toHaveLength(2);
    await verifySignature(during.body, during.signature, endpoint.secret, { now: during.now });
    await verifySignature(during.body, during.signature, rotated.secret, { now: during.now });

    await sandbox.clock.advance({ seconds: 3_600 });
    await approvedUser(client, 10);
    await sandbox.webhooks.flush();
    const after = received.at(-1) as { body: string; signature: string; now: Date };
    expect(after).not.toBe(during);
    expect(after.signature.match(/v1=/g)).toHaveLength(1);
    await verifySignature(after.body, after.signature, rotated.secret, { now: after.now });
    const error = await verifySignature(after.body, after.signature, endpoint.secret, { now: after.now }).catch((e: unknown) => e);
    expect(isWebhookVerificationError(error)).toBe(true);
  });

  it('defaults to a 24-hour grace period, and 0 drops the old secret at once', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const first = await client.webhookEndpoints.rotateSecret(endpoint.id);
    expect(Date.parse(first.previous_secret_expires_at as string) - sandbox.clock.now().getTime()).toBe(86_400_000);
    const second = await client.webhookEndpoints.rotateSecret(endpoint.id, { grace_period_seconds: 0 });
    expect(second.previous_secret_expires_at).toBeNull();
    const signatures: string[] = [];
    sandbox.webhooks.listen(RECEIVER, (request) => void signatures.push(request.headers.get('x-service-signature') as string));
    await approvedUser(client, 11);
    await sandbox.webhooks.flush();
    expect(signatures.length).toBeGreaterThan(0);
    for (const s of signatures) expect(s.match(/v1=/g)).toHaveLength(1);
  });

  it('gives each attempt in flight its own abort signal, and close() aborts every one', async () => {
    // A transport that listens on its signal, as fetch does: 16 attempts in flight on one shared
    // signal would pass the runtime's leak warning (more than 10 listeners on one target).
    const signals: AbortSignal[] = [];
    const aborted: unknown[] = [];
    const transport: WebhookTransport = (_request, { signal }) =>
      new Promise((_resolve, reject) => {
        signals.push(signal);
        signal.addEventListener('abort', () => {
          aborted.push(signal.reason);
          reject(new Error('aborted'));
        });
      });
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const { sandbox, client } = setup({ webhookTransport: transport });
      for (let i = 0; i < 4; i++) await client.webhookEndpoints.create({ url: `https://hooks-${i}.example/webhooks`, event_types: ['user.kyc_pending'] });
      for (let i = 0; i < 4; i++) await client.users.create(userBody(i));
      for (let i = 0; i < 200 && signals.length < 16; i++) await new Promise((resolve) => setTimeout(resolve, 0));
      expect(signals).toHaveLength(16);
      expect(new Set(signals).size).toBe(16);
      expect(signals.some((signal) => signal.aborted)).toBe(false);

      await sandbox.close();
      expect(aborted).toHaveLength(16);
      expect(signals.every((signal) => signal.aborted)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 0)); // warnings are emitted on a later tick
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });
});
