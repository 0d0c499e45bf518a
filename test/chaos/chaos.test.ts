/**
 * Chaos: faults on every mutating endpoint ("commit then lose the response", 500, 502, 429,
 * seeded so that every run is the same), a scripted workload of more than 1,000 client calls,
 * and then the books are checked by listing: no duplicate resource, nothing lost, and every
 * call either succeeded or raised the typed error that the retry rules call for (and was then
 * recovered by calling again with the same Idempotency-Key, as a partner would).
 */
import { describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InternalServerError,
  PixUsdt,
  RateLimitError,
  UpstreamError,
  type RequestOptions,
} from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { constructEvent } from '../../src/webhooks/index.js';
import { cpf, onrampBody } from '../support/fixtures.js';

const USERS = 180;
const RECEIVER = 'https://partner.example/webhooks';


/** Errors a call may end with once its retries are exhausted: the transient families, nothing else. */
function isRetryExhaustion(error: unknown): boolean {
  if (error instanceof ConnectionError || error instanceof RateLimitError || error instanceof UpstreamError) return true;
  return error instanceof InternalServerError && error.code === 'internal_error';
}

describe('chaos', () => {
  it('survives faults on every mutating endpoint: no duplicate, nothing lost', async () => {
    const sandbox = createSandbox({ seed: 'chaos', now: '2026-03-02T12:00:00Z' });
    const waits: number[] = [];
    const client = new PixUsdt({
      apiKey: sandbox.apiKey,
      fetch: sandbox.fetch,
      // No real waiting: backoff moves the sandbox's virtual clock instead.
      sleep: async (ms) => {
        waits.push(ms);
        await sandbox.clock.advance({ ms });
      },
    });

    // A receiver that dedupes on the event id, as the reference asks.
    const endpoint = await client.webhookEndpoints.create({ url: RECEIVER, event_types: ['*'] });
    const received = new Map<string, number>();
    sandbox.webhooks.listen(RECEIVER, async (request, { now }) => {
      const event = await constructEvent(request, endpoint.secret, { now });
      received.set(event.id, (received.get(event.id) ?? 0) + 1);
    });

    const mutating = 'POST|PATCH|DELETE /v1/**';
    const plans = [
      sandbox.faults.add({ match: mutating, probability: 0.12, seed: 'lose', fault: { type: 'commit_then_lose' } }),
      sandbox.faults.add({ match: mutating, probability: 0.08, seed: '500', fault: { type: 'error', code: 'internal_error' } }),
      sandbox.faults.add({ match: mutating, probability: 0.08, seed: '502', fault: { type: 'error', code: 'upstream_unavailable', upstream: 'exchange' } }),
      sandbox.faults.add({ match: mutating, probability: 0.08, seed: '429', fault: { type: 'error', code: 'rate_limit_exceeded', retryAfterSeconds: 2 } }),
    ];

    let calls = 0;
    let keys = 0;
    const exhausted: unknown[] = [];
    /** One logical mutation: the client's own retries, then (if they ran out) the same key again. */
    async function mutate<T>(run: (options: RequestOptions) => Promise<T>): Promise<T> {
      const options = { idempotencyKey: `chaos-${++keys}` };
      for (;;) {
        calls++;
        try {
          return await run(options);
        } catch (error) {
          if (!isRetryExhaustion(error)) throw error;
          exhausted.push(error);
        }
      }
    }

    const expected = { completed: new Set<string>(), canceled: new Set<string>() };
    for (let n = 1; n <= USERS; n++) {
      const user = await mutate((o) =>
        client.users.create({ external_id: `chaos-${n}`, name: `Chaos ${n}`, document_type: 'cpf', document_number: cpf(n) }, o),
      );
      await mutate((o) => client.testHelpers.users.kyc(user.id, { status: 'approved' }, o));
      await mutate((o) => client.users.update(user.id, { metadata: { round: String(n) } }, o));
      const quote = await mutate((o) =>
        client.quotes.create(
          onrampBody(user.id, '100.00'),
          o,
        ),
      );
      const conversion = await mutate((o) => client.quotes.accept(quote.id, {}, o));
      if (n % 4 === 0) {
        await mutate((o) => client.conversions.cancel(conversion.id, o));
        expected.canceled.add(conversion.id);
      } else {
        await mutate((o) => client.testHelpers.conversions.simulateOnrampPixPaid(conversion.id, { settle: true }, o));
        expected.completed.add(conversion.id);
      }
    }
    expect(calls).toBeGreaterThanOrEqual(1_000);

    // Every fault kind struck, the client retried, and some calls needed the partner's own retry.
    for (const plan of sandbox.faults.list()) expect(plan.hits, plan.fault.type).toBeGreaterThan(10);
    expect(plans).toHaveLength(4);
    expect(waits.length).toBeGreaterThan(300);
    for (const error of exhausted) expect(isRetryExhaustion(error)).toBe(true);
    sandbox.faults.clear();

    // The books, by listing.
    const users = [];
    for await (const u of client.users.list({ limit: 100 })) users.push(u);
    expect(users).toHaveLength(USERS);
    expect(new Set(users.map((u) => u.external_id)).size).toBe(USERS);
    for (const u of users) {
      expect(u.kyc_status).toBe('approved');
      expect(u.metadata).toEqual({ round: u.external_id.slice('chaos-'.length) });
    }
    const quotes = [];
    for await (const q of client.quotes.list({ limit: 100 })) quotes.push(q);
    expect(quotes).toHaveLength(USERS);
    expect(new Set(quotes.map((q) => q.user_id)).size).toBe(USERS);
    const conversions = [];
    for await (const c of client.conversions.list({ limit: 100 })) conversions.push(c);
    expect(conversions).toHaveLength(USERS);
    expect(new Set(conversions.map((c) => c.user_id)).size).toBe(USERS);
    for (const c of conversions) {
      expect(c.status).toBe(expected.completed.has(c.id) ? 'completed' : 'canceled');
      expect(expected.completed.has(c.id) || expected.canceled.has(c.id)).toBe(true);
    }

    // Events: one per transition, each received at least once (and deduped by id).
    await sandbox.webhooks.flush();
    sandbox.webhooks.assertNothingPending();
    const events = sandbox.events();
    expect(events.filter((e) => e.type === 'conversion.created')).toHaveLength(USERS);
    expect(events.filter((e) => e.type === 'conversion.canceled')).toHaveLength(expected.canceled.size);
    expect(events.filter((e) => e.type === 'conversion.completed')).toHaveLength(expected.completed.size);
    expect([...received.keys()].sort()).toEqual(events.map((e) => e.id).sort());
  });
});
