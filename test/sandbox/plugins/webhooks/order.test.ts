/**
 * Issue 21: one endpoint receives one object's events in the order they happened (no test mode
 * asking for reordering), also when the receiver answers out of order and when an earlier event
 * is retrying (held behind it, up to `holdBehindFailures` failures); and `attempted_at` is the
 * instant an attempt was sent, not the instant it fell due.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../../src/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../../../src/sandbox/index.js';
import { RECEIVER, T0 } from './helpers.js';
import { cpf } from '../../../support/fixtures.js';

const opened: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

function setup(options: SandboxOptions = {}): { sandbox: Sandbox; client: PixUsdt } {
  const sandbox = createSandbox({ seed: 'order', now: T0, ...options });
  opened.push(sandbox);
  return { sandbox, client: new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 }) };
}

/** The `data.object.id` and type of a delivered request, read from its body. */
async function about(request: Request): Promise<{ object: string; type: string }> {
  const event = JSON.parse(await request.clone().text()) as { type: string; data: { object: { id: string } } };
  return { object: event.data.object.id, type: event.type };
}

/** A few turns of the event loop: a receiver slower on some events than on others. */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

async function createUsers(client: PixUsdt, count: number): Promise<string[]> {
  const users = await Promise.all(
    Array.from({ length: count }, (_, i) => client.users.create({ external_id: `o-${i}`, name: `User ${i}`, document_type: 'cpf', document_number: cpf(i + 1) })),
  );
  return users.map((u) => u.id);
}

describe('order per object', () => {
  it("a receiver slow on kyc_pending and quick on kyc_approved still gets each user's kyc_pending first", async () => {
    const { sandbox, client } = setup();
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const arrivals: Array<{ object: string; type: string }> = [];
    sandbox.webhooks.listen(RECEIVER, async (request) => {
      const seen = await about(request);
      arrivals.push(seen);
      await turns(seen.type === 'user.kyc_pending' ? 5 : 0);
      return 204;
    });
    // Many users at once, then (their deliveries under way) their approvals at once.
    const ids = await createUsers(client, 60);
    await new Promise((resolve) => setTimeout(resolve, 0));
    await Promise.all(ids.map((id) => client.testHelpers.users.kyc(id, { status: 'approved' })));
    await sandbox.webhooks.flush();

    expect(arrivals).toHaveLength(120);
    for (const id of ids) {
      expect(arrivals.filter((a) => a.object === id).map((a) => a.type), id).toEqual(['user.kyc_pending', 'user.kyc_approved']);
    }
    sandbox.webhooks.assertNothingPending();
  });

  it('holds an object’s later event behind its earlier one while that one retries, then sends it right after', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const arrivals: Array<{ type: string; status: number }> = [];
    let failPending = true;
    sandbox.webhooks.listen(RECEIVER, async (request) => {
      const { type } = await about(request);
      const status = type === 'user.kyc_pending' && failPending ? 500 : 200;
      arrivals.push({ type, status });
      return status;
    });
    const [userId] = await createUsers(client, 1);
    await sandbox.webhooks.flush();
    await client.testHelpers.users.kyc(userId as string, { status: 'approved' });
    await sandbox.webhooks.flush();
    // The approval waits behind the retrying kyc_pending: not sent, and pending() says why.
    expect(arrivals).toEqual([{ type: 'user.kyc_pending', status: 500 }]);
    const deliveries = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    const first = deliveries.find((d) => d.event_type === 'user.kyc_pending');
    const held = sandbox.webhooks.pending().find((p) => p.eventType === 'user.kyc_approved');
    expect(held).toMatchObject({ attemptCount: 0, heldBehind: first?.id });
    expect(() => sandbox.webhooks.assertNothingPending()).toThrow(/held behind/);

    failPending = false;
    await sandbox.clock.advance({ seconds: 30 });
    expect(arrivals).toEqual([
      { type: 'user.kyc_pending', status: 500 },
      { type: 'user.kyc_pending', status: 200 },
      { type: 'user.kyc_approved', status: 200 },
    ]);
    // The held delivery went when it was released: sent at T0 + 30 s, its first attempt.
    const approved = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data.find((d) => d.event_type === 'user.kyc_approved');
    expect(approved).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    expect(approved?.attempts[0]?.attempted_at).toBe(new Date(T0 + 30_000).toISOString());
    sandbox.webhooks.assertNothingPending();
  });

  /** A receiver that always refuses `user.kyc_pending`; one user created, then approved. The arrivals, by type. */
  async function refusingPending(options: SandboxOptions): Promise<{ sandbox: Sandbox; arrivals: string[] }> {
    const { sandbox, client } = setup(options);
    await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const arrivals: string[] = [];
    sandbox.webhooks.listen(RECEIVER, async (request) => {
      const { type } = await about(request);
      arrivals.push(type);
      return type === 'user.kyc_pending' ? 500 : 200;
    });
    const [userId] = await createUsers(client, 1);
    await sandbox.webhooks.flush();
    await client.testHelpers.users.kyc(userId as string, { status: 'approved' });
    await sandbox.webhooks.flush();
    return { sandbox, arrivals };
  }

  it('holds up to a bound: after holdBehindFailures failures of the earlier event, the later one goes', async () => {
    const { sandbox, arrivals } = await refusingPending({ webhooks: { holdBehindFailures: 2 } });
    expect(arrivals).toEqual(['user.kyc_pending']);
    // The second failure (at 30 s) ends the hold: the approval goes, out of order on purpose.
    await sandbox.clock.advance({ seconds: 30 });
    expect(arrivals).toEqual(['user.kyc_pending', 'user.kyc_pending', 'user.kyc_approved']);
    const pending = sandbox.webhooks.pending();
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ eventType: 'user.kyc_pending', attemptCount: 2, heldBehind: null });
  });

  it('keeps no order per object in the shuffle test mode', async () => {
    const { arrivals } = await refusingPending({ webhooks: { shuffle: 'order-seed' } });
    // Not held behind the retrying kyc_pending.
    expect(arrivals).toEqual(['user.kyc_pending', 'user.kyc_approved']);
  });
});

describe('attempted_at', () => {
  it('is the instant the attempt was sent: a retry made late by a clock jump reads as late, and the next retry counts from it', async () => {
    const { sandbox, client } = setup();
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_pending'] });
    sandbox.webhooks.listen(RECEIVER, () => 500);
    await createUsers(client, 1);
    await sandbox.webhooks.flush();
    // One hour at once over HTTP: the retry due at 30 s leaves once, at the new time.
    const jump = await sandbox.fetch('/v1/test_helpers/clock/advance', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 3_600 }),
    });
    expect(jump.status).toBe(200);
    await sandbox.webhooks.flush();
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(d?.attempts.map((a) => (Date.parse(a.attempted_at) - T0) / 1000)).toEqual([0, 3_600]);
    expect((Date.parse(d?.next_attempt_at as string) - T0) / 1000).toBe(3_600 + 120);
  });

  it('a retry due at once (a wait of 0) is sent without the clock moving, until the schedule ends', async () => {
    const { sandbox, client } = setup({ webhooks: { retryScheduleSeconds: [0, 0] } });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_pending'] });
    let calls = 0;
    sandbox.webhooks.listen(RECEIVER, () => (calls++, 503));
    await createUsers(client, 1);
    await sandbox.webhooks.flush();
    expect(calls).toBe(3);
    const [d] = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    expect(d).toMatchObject({ status: 'failed', attempt_count: 3, next_attempt_at: null });
    expect(d?.attempts.map((a) => a.attempted_at)).toEqual(Array(3).fill(new Date(T0).toISOString()));
  });

  it('is the instant the attempt left its queue, for an attempt that waited for a free slot', async () => {
    const { sandbox, client } = setup({ webhooks: { concurrency: { perEndpoint: 1 } } });
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['user.kyc_pending'] });
    let release: (() => void) | null = null;
    let calls = 0;
    sandbox.webhooks.listen(RECEIVER, () => {
      calls++;
      if (calls > 1) return 200;
      return new Promise<number>((resolve) => (release = () => resolve(200)));
    });
    await createUsers(client, 2);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(calls).toBe(1); // the second waits for the endpoint's only slot
    await sandbox.fetch('/v1/test_helpers/clock/advance', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ seconds: 10 }),
    });
    (release as unknown as () => void)();
    await sandbox.webhooks.flush();
    const deliveries = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data;
    const sent = deliveries.map((d) => (Date.parse(d.attempts[0]?.attempted_at as string) - T0) / 1000).sort((a, b) => a - b);
    expect(sent).toEqual([0, 10]);
    for (const d of deliveries) expect(d.created_at).toBe(new Date(T0).toISOString());
  });
});
