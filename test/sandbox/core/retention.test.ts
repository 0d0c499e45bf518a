/**
 * Issue 28, structural: what the in-memory sandbox keeps does not grow without bound. The
 * issue's onramp loop (user, KYC, quote, accept, Pix paid, retrieve, an idempotent replay of the
 * accept, a list) runs in rounds with small retention settings and the clock moving; each kind
 * of record that is not a record a partner reads back stays within its retention, round after
 * round, while the records themselves are all kept, and what is kept is in its compact form.
 * Then the live heap per lifecycle, after a full GC, is held to a bound (1.5 times the issue's
 * target of 6 kB; about 7.3 kB here, where the memos of derived strings still fill), so that a
 * new kind of growth nobody counts is caught too. No timing: counts and bytes only.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { type Sandbox, type SandboxOptions, createSandbox } from '../../../src/sandbox/index.js';
import { internalsOf } from '../../../src/sandbox/sandbox.js';
import type { TenantState } from '../../../src/sandbox/core/state.js';
import { PackedEvent } from '../../../src/sandbox/core/event-log.js';
import type { MemoryEventLog, MemoryIdempotency } from '../../../src/sandbox/core/logs.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

const T0 = Date.parse('2026-03-02T12:00:00.000Z');
const BIG = { daily: '1000000000000', monthly: '1000000000000' };

function loop(options: SandboxOptions): { sandbox: Sandbox; client: PixUsdt; tenant: TenantState; run(count: number, secondsApart: number): Promise<string[]> } {
  const sandbox = createSandbox({ seed: 'retention', now: T0, quoteRateLimit: 0, limits: { platform: BIG, partner: BIG, user: BIG }, ...options });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const tenant = internalsOf(sandbox)?.platform.tenants.get(sandbox.tenantId) ?? expect.fail('no tenant');
  let n = 0;
  return {
    sandbox,
    client,
    tenant,
    async run(count, secondsApart) {
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const k = ++n;
        const user = await client.users.create({ external_id: `r${k}`, name: 'Loop', document_type: 'cpf', document_number: cpf(k) });
        await client.testHelpers.users.kyc(user.id, { status: 'approved' });
        const quote = await client.quotes.create(onrampBody(user.id, '100.00'));
        const conversion = await client.quotes.accept(quote.id, {}, { idempotencyKey: `accept-${k}` });
        await client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true });
        await client.conversions.retrieve(conversion.id);
        await client.quotes.accept(quote.id, {}, { idempotencyKey: `accept-${k}` });
        await client.conversions.list({ user_id: user.id, limit: 10 });
        ids.push(conversion.id);
        // Deliveries go out as in a running server: after each lifecycle.
        if (secondsApart > 0) await sandbox.clock.advance({ seconds: secondsApart });
        else await sandbox.webhooks.flush();
      }
      return ids;
    },
  };
}

describe('retention (issue 28): what is not a record stays within its bound', () => {
  it('events, idempotency records, deliveries, the request log and timers stay bounded round after round; records are all kept', async () => {
    const w = loop({ eventLogSize: 40, deliveryLogSize: 25, requestLogSize: 30, idempotencyTtlSeconds: 3600 });
    const parts = internalsOf(w.sandbox) ?? expect.fail('no internals');
    // The request log and the inspector's moves record once the inspector is open: open it first.
    expect(w.sandbox.inspector.requests()).toEqual([]);
    const url = 'https://receiver.example/hooks';
    w.sandbox.webhooks.listen(url, () => 200);
    await w.client.webhookEndpoints.create({ url, event_types: ['*'] });
    const t = w.tenant;
    // In memory (no storage): the logs are the memory ones (core/logs.ts).
    const events = t.events as MemoryEventLog;
    const idempotency = t.idempotency as MemoryIdempotency;
    const counts = (): Record<string, number> => ({
      events: events.length,
      idempotency: idempotency.size,
      idempotencyOrder: idempotency.queued,
      requests: parts.app.requests.size,
      deliveries: parts.webhooks.records.of(t).deliveries.length,
      timers: t.clock.pendingTimers,
      users: t.users.size,
    });
    // Two minutes apart: 30 lifecycles an hour, the idempotency window here.
    const first = await w.run(45, 120);
    const a = counts();
    await w.run(45, 120);
    const b = counts();
    for (const c of [a, b]) {
      expect(c['events'], 'events (eventLogSize 40, trimmed in batches)').toBeLessThanOrEqual(80);
      // The last hour's mutations: 5 keyed ones a lifecycle (the replay adds none), 30 lifecycles.
      expect(c['idempotency'], 'idempotency records (1 h)').toBeLessThanOrEqual(5 * 31);
      expect(c['idempotencyOrder'], 'idempotency expiry order').toBeLessThanOrEqual(c['idempotency'] as number);
      expect(c['requests'], 'request log (requestLogSize 30)').toBeLessThanOrEqual(60);
      expect(c['deliveries'], 'finished deliveries (deliveryLogSize 25)').toBeLessThanOrEqual(50);
      // One KYC expiry a user (a year ahead); the other timers of a lifecycle fire within its
      // deposit window (15 minutes: 8 lifecycles here, 2 timers each at most).
      expect(c['timers'], 'timers').toBeLessThanOrEqual((c['users'] as number) + 16);
    }
    expect(w.sandbox.events()).toHaveLength(40);
    expect(idempotency.size).toBeGreaterThan(100);
    // Compact forms: every answer of the loop is a record's version, every event too (not text, not a copy).
    expect(idempotency.answered().filter((r) => typeof r.body === 'string')).toEqual([]);
    expect(events.recent(events.length).filter((e) => !(e instanceof PackedEvent))).toEqual([]);
    expect(w.sandbox.inspector.requests()).toHaveLength(30);
    // Records a partner reads back are kept: the first conversion of all, 3 hours later.
    expect(b['users']).toBe(90);
    expect((await w.client.conversions.retrieve(first[0] as string)).status).toBe('completed');
    expect([t.quotes.size, t.conversions.size, t.transactions.size]).toEqual([90, 90, 90]);
    // A delivery past the retention answers 404; the listing pages over the ones kept.
    const endpoint = (await w.client.webhookEndpoints.list()).data[0] ?? expect.fail('no endpoint');
    const kept = [];
    for await (const d of w.client.webhookEndpoints.listDeliveries(endpoint.id, { limit: 10 })) kept.push(d);
    expect(kept.length).toBe(b['deliveries']);
    expect(kept.every((d) => d.status === 'succeeded')).toBe(true);
    const oldest = parts.webhooks.records.of(t).deliveries[0] ?? expect.fail('no delivery');
    expect(kept.map((d) => d.id)).toContain(oldest.id);
  });

  it('pending deliveries are kept however many finish after them', async () => {
    const w = loop({ deliveryLogSize: 5 });
    const parts = internalsOf(w.sandbox) ?? expect.fail('no internals');
    w.sandbox.webhooks.listen('https://down.example/hooks', () => 503);
    w.sandbox.webhooks.listen('https://up.example/hooks', () => 200);
    await w.client.webhookEndpoints.create({ url: 'https://down.example/hooks', event_types: ['conversion.created'] });
    await w.client.webhookEndpoints.create({ url: 'https://up.example/hooks', event_types: ['*'] });
    await w.run(12, 0);
    const deliveries = parts.webhooks.records.of(w.tenant).deliveries;
    expect(deliveries.filter((d) => d.status === 'pending')).toHaveLength(12);
    expect(deliveries.filter((d) => d.status !== 'pending').length).toBeLessThanOrEqual(10);
    const first = (await w.client.webhookEndpoints.list()).data.find((e) => e.url.includes('up.'));
    const gone = await w.sandbox.fetch('/v1/webhook_deliveries/00000000-0000-4000-8000-000000000000', { headers: { authorization: `Bearer ${w.sandbox.apiKey}` } });
    expect(gone.status).toBe(404);
    expect(first).toBeDefined();
  });

  it('the retention options refuse what is not a positive whole number', () => {
    for (const [name, value] of [
      ['eventLogSize', 0],
      ['deliveryLogSize', 1.5],
      ['requestLogSize', -3],
      ['eventLogSize', Number.NaN],
    ] as const) {
      expect(() => createSandbox({ [name]: value }), `${name} ${value}`).toThrow(new RegExp(`${name} must be a positive whole number`));
    }
  });

  it('the live heap per lifecycle stays under 9 kB, every record and idempotency record kept', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const heap = (): number => {
      for (let i = 0; i < 3; i++) gc();
      return process.memoryUsage().heapUsed;
    };
    const w = loop({});
    const parts = internalsOf(w.sandbox) ?? expect.fail('no internals');
    // The logs bounded by count (requests, the inspector's moves) fill over the first thousands
    // of lifecycles: left out here, as the first test holds them to their bounds.
    const settled = (): number => {
      parts.app.requests.clear();
      parts.inspection?.forget();
      return heap();
    };
    await w.run(100, 0); // warm-up: code, memos and tables reach their size
    const before = settled();
    const count = 400;
    await w.run(count, 0);
    const perLifecycle = (settled() - before) / count;
    expect((w.tenant.idempotency as MemoryIdempotency).size).toBe(5 * 500);
    expect(perLifecycle, `${Math.round(perLifecycle)} bytes per lifecycle`).toBeLessThan(9_000);
    expect(perLifecycle).toBeGreaterThan(1_000); // it measured something
  });
});
