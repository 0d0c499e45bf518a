/**
 * Issue 21: no neighbour can hold up a tenant's deliveries. Tenant A's endpoints hang, answer
 * slowly or answer 500, with a backlog; tenant B's deliveries to its fast receiver all go, and
 * B's `clock.advance` waits for B's deliveries only. In-process receivers the test controls:
 * counts, order and states are asserted, never durations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../../src/index.js';
import { type ReceiverContext, type Sandbox, createSandbox } from '../../../../src/sandbox/index.js';
import { T0 } from './helpers.js';
import { cpf } from '../../../support/fixtures.js';

const opened: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** A receiver that answers only when released (hang, or slow: released later), or when the sandbox closes. */
function gate() {
  const waiting: Array<() => void> = [];
  let calls = 0;
  return {
    receiver: (_request: Request, { signal }: ReceiverContext) =>
      new Promise<number>((resolve) => {
        calls++;
        const release = (): void => resolve(200);
        waiting.push(release);
        signal.addEventListener('abort', () => {
          const i = waiting.indexOf(release);
          if (i >= 0) waiting.splice(i, 1);
          resolve(503);
        });
      }),
    get calls() {
      return calls;
    },
    get inFlight() {
      return waiting.length;
    },
    releaseOne(): void {
      waiting.shift()?.();
    },
    releaseAll(): void {
      for (const release of waiting.splice(0)) release();
    },
  };
}

const limits = { perEndpoint: 2, perTenant: 4, total: 6 };

function world(concurrency = limits) {
  const sandbox = createSandbox({ seed: 'neighbours', now: T0, webhooks: { concurrency } });
  opened.push(sandbox);
  const b = sandbox.createTenant();
  const clientA = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const clientB = new PixUsdt({ apiKey: b.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  return { sandbox, b, clientA, clientB };
}

async function users(client: PixUsdt, from: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await client.users.create({ external_id: `u-${from + i}`, name: `User ${from + i}`, document_type: 'cpf', document_number: cpf(from + i) });
  }
}

describe("B's deliveries while A's endpoints hang, answer slowly or answer 500", () => {
  it.each([1, 12])('with %i hanging endpoint(s) in A, besides a slow one and a 500 one, every B delivery succeeds at its first attempt', async (hanging) => {
    const { sandbox, b, clientA, clientB } = world();
    const hang = gate();
    const slow = gate();
    let fiveHundreds = 0;
    await clientA.webhookEndpoints.create({ url: 'https://a.example/500', event_types: ['*'] });
    sandbox.webhooks.listen('https://a.example/500', () => (fiveHundreds++, 500));
    await clientA.webhookEndpoints.create({ url: 'https://a.example/slow', event_types: ['*'] });
    sandbox.webhooks.listen('https://a.example/slow', slow.receiver);
    for (let i = 0; i < hanging; i++) {
      await clientA.webhookEndpoints.create({ url: `https://a.example/hang/${i}`, event_types: ['*'] });
      sandbox.webhooks.listen(`https://a.example/hang/${i}`, hang.receiver);
    }
    const endpointB = await clientB.webhookEndpoints.create({ url: 'https://b.example/hook', event_types: ['*'] });
    const gotB: string[] = [];
    sandbox.webhooks.listen('https://b.example/hook', (request) => void gotB.push(request.headers.get('x-service-event-id') as string));

    // A's backlog first, then B's events.
    await users(clientA, 0, 20);
    await users(clientB, 100, 20);
    // B's advance waits for B's deliveries, not for A's receivers (which still hold theirs).
    await sandbox.clockOf(b.tenantId).advance({ seconds: 0 });

    expect(gotB).toEqual(sandbox.events(b.tenantId).map((e) => e.id));
    expect(gotB).toHaveLength(20);
    const deliveriesB = (await clientB.webhookEndpoints.listDeliveries(endpointB.id, { limit: 100 })).data;
    expect(deliveriesB).toHaveLength(20);
    for (const d of deliveriesB) expect(d).toMatchObject({ status: 'succeeded', attempt_count: 1 });
    // A holds at most its share, and each of its endpoints at most its own.
    expect(hang.inFlight + slow.inFlight).toBeLessThanOrEqual(limits.perTenant);
    expect(slow.inFlight).toBeLessThanOrEqual(limits.perEndpoint);
    expect(hang.inFlight).toBeLessThanOrEqual(Math.min(limits.perTenant, hanging * limits.perEndpoint));
    expect(sandbox.webhooks.pending(sandbox.tenantId).length).toBeGreaterThan(20 * hanging);
    expect(sandbox.webhooks.pending(b.tenantId)).toEqual([]);

    // A's 500 endpoint was attempted (its slot freed at once) and retries on its schedule.
    expect(fiveHundreds).toBeGreaterThan(0);
    expect(sandbox.webhooks.pending(sandbox.tenantId).some((p) => p.url === 'https://a.example/500' && p.attemptCount === 1 && /500/.test(p.lastError ?? ''))).toBe(true);
    slow.releaseAll();
    hang.releaseAll();
  });

  it("A's backlog of 300 to one endpoint does not starve B's single event: B's goes at once, in the slot kept for a tenant with nothing in flight", async () => {
    const { sandbox, b, clientA, clientB } = world({ perEndpoint: 2, perTenant: 4, total: 2 });
    const a = gate();
    await clientA.webhookEndpoints.create({ url: 'https://a.example/backlog', event_types: ['*'] });
    sandbox.webhooks.listen('https://a.example/backlog', a.receiver);
    await clientB.webhookEndpoints.create({ url: 'https://b.example/hook', event_types: ['*'] });
    let deliveredB = 0;
    sandbox.webhooks.listen('https://b.example/hook', () => void deliveredB++);
    await users(clientA, 0, 300);
    await new Promise((resolve) => setTimeout(resolve, 0)); // the attempts are queued on a later task
    // A alone holds its share of 2 (issue 35: one share is kept for a tenant with nothing in flight).
    expect(a.inFlight).toBe(1);
    await users(clientB, 1000, 1);
    // B's attempt goes with A's still hanging: B's advance waits for it, not for A.
    await sandbox.clockOf(b.tenantId).advance({ seconds: 0 });
    expect(deliveredB).toBe(1);
    expect(a.inFlight).toBe(1);
    expect(a.calls).toBe(1);
    expect(sandbox.webhooks.pending(sandbox.tenantId).length).toBe(300);
    a.releaseAll();
  });
});

describe('the HTTP clock advance', () => {
  it('answers without waiting for the deliveries it makes due; wait_for_deliveries waits for them', async () => {
    const { sandbox, clientA } = world();
    const hang = gate();
    await clientA.webhookEndpoints.create({ url: 'https://a.example/hang', event_types: ['user.kyc_pending'] });
    sandbox.webhooks.listen('https://a.example/hang', hang.receiver);
    const advance = (body: Record<string, unknown>): Promise<Response> =>
      sandbox.fetch('/v1/test_helpers/clock/advance', { method: 'POST', headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await users(clientA, 0, 1);
    const answer = await advance({ seconds: 60 });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ now: new Date(T0 + 60_000).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(hang.inFlight).toBe(1); // the attempt was sent after the answer, and hangs

    await users(clientA, 1, 1);
    let answered = false;
    const waiting = advance({ seconds: 60, wait_for_deliveries: true }).then((r) => ((answered = true), r));
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(hang.inFlight).toBe(2);
    expect(answered).toBe(false);
    hang.releaseAll();
    expect((await waiting).status).toBe(200);
  });
});
