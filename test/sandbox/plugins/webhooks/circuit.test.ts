/**
 * The circuit per endpoint (issue 35): attempts that keep ending without an answer open it, the
 * attempts that fall due meanwhile are delayed (next_attempt_at moved, `deferred` says why), it
 * half-opens after the cool-down (one trial), an answer closes it and releases the rest, a trial
 * without an answer opens it again for longer. Every attempt of the reference's schedule is still
 * made: the circuit delays, never drops or adds one. A frozen clock, and a transport the test
 * answers or times out itself: counts and states, never durations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PixUsdt, WebhookDelivery } from '../../../../src/index.js';
import { DEFAULT_CIRCUIT, RETRY_SCHEDULE_SECONDS, type Sandbox, type SandboxOptions, type WebhookResponse, type WebhookTransport } from '../../../../src/sandbox/index.js';
import { approvedUser, cpf, onrampBody as onramp } from '../../../support/fixtures.js';
import { T0, setup } from './helpers.js';

const DEAD = 'https://dead.example/hook';
const iso = (ms: number): string => new Date(ms).toISOString();
const opened: Sandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((s) => s.close()));
});

/** A transport whose attempts wait for the test: `timeOut()` ends the oldest without an answer, `answer()` with a status; or answers at once. */
function controlled() {
  const held: Array<{ url: string; resolve: (r: WebhookResponse) => void; reject: (e: Error) => void }> = [];
  const sent: string[] = [];
  let mode: 'hold' | 'fail' | 'answer' = 'hold';
  const transport: WebhookTransport = (request, { signal }) =>
    new Promise<WebhookResponse>((resolve, reject) => {
      sent.push(request.headers['X-Service-Event-Id'] as string);
      if (mode === 'answer') return resolve({ status: 200 });
      if (mode === 'fail') return reject(new Error('connect ECONNREFUSED'));
      held.push({ url: request.url, resolve, reject });
      signal.addEventListener('abort', () => reject(new Error('aborted')));
    });
  return {
    transport,
    held,
    sent,
    set mode(m: 'hold' | 'fail' | 'answer') {
      mode = m;
    },
    timeOut(): void {
      held.shift()?.reject(new Error('The receiver did not answer within 10000 ms'));
    },
    answer(status = 200): void {
      held.shift()?.resolve({ status });
    },
  };
}

/** Lets the sandbox's later tasks run (attempts are queued on a later task, signed asynchronously) until `done`. */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 0));
  if (!done()) throw new Error(`never happened: ${what}`);
}

async function world(options: SandboxOptions = {}) {
  const t = controlled();
  const { sandbox, client } = setup({ webhookTransport: t.transport, ...options });
  opened.push(sandbox);
  const endpoint = await client.webhookEndpoints.create({ url: DEAD, event_types: ['user.kyc_pending'] });
  return Object.assign(t, { sandbox, client, endpoint });
}

async function users(client: PixUsdt, count: number, from = 0): Promise<void> {
  for (let i = 0; i < count; i++) await client.users.create({ external_id: `c-${from + i}`, name: `User ${from + i}`, document_type: 'cpf', document_number: cpf(from + i) });
}

async function deliveries(client: PixUsdt, endpointId: string): Promise<WebhookDelivery[]> {
  return (await client.webhookEndpoints.listDeliveries(endpointId, { limit: 100 })).data;
}

/** 20 deliveries, 4 in flight; five time out one after another: the circuit opens. */
async function opening() {
  const w = await world();
  await users(w.client, 20);
  await until(() => w.held.length === 4, 'four attempts in flight');
  for (let i = 0; i < DEFAULT_CIRCUIT.failures; i++) {
    w.timeOut();
    await until(() => w.held.length === 4 || i === DEFAULT_CIRCUIT.failures - 1, 'the next attempt in flight');
  }
  // Those that started before it opened run on, and time out too (they change nothing more).
  await until(() => w.held.length === 3, 'three attempts left in flight');
  while (w.held.length > 0) w.timeOut();
  await w.sandbox.webhooks.flush();
  return w;
}

describe('the circuit of an endpoint whose attempts keep ending without an answer', () => {
  it('opens after 5 in a row: the attempts that fall due meanwhile are delayed to the end of the cool-down, not made', async () => {
    const w = await opening();
    expect(w.sent).toHaveLength(8);
    const list = await deliveries(w.client, w.endpoint.id);
    const attempted = list.filter((d) => d.attempt_count === 1);
    const delayed = list.filter((d) => d.attempt_count === 0);
    expect(attempted).toHaveLength(8);
    expect(delayed).toHaveLength(12);
    const openUntil = iso(T0 + DEFAULT_CIRCUIT.cooldownSeconds * 1000);
    for (const d of attempted) {
      // A failed attempt keeps its place in the schedule: the first retry 30 s after it.
      expect(d).toMatchObject({ status: 'pending', next_attempt_at: iso(T0 + RETRY_SCHEDULE_SECONDS[0]! * 1000), deferred: null });
      expect(d.last_error).toMatch(/did not answer/);
    }
    for (const d of delayed) {
      expect(d).toMatchObject({ status: 'pending', attempts: [], next_attempt_at: openUntil, deferred: { reason: 'circuit_open', scheduled_at: iso(T0) } });
    }
    // The same over one delivery's route, in pending() and in the inspector's endpoint view.
    const one = await w.client.webhookDeliveries.retrieve(delayed[0]!.id);
    expect(one.deferred).toEqual({ reason: 'circuit_open', scheduled_at: iso(T0) });
    const pending = w.sandbox.webhooks.pending().filter((p) => p.deferredSince !== null);
    expect(pending).toHaveLength(12);
    expect(pending[0]!.deferredSince).toEqual(new Date(T0));
    expect(() => w.sandbox.webhooks.assertNothingPending()).toThrow(/delayed since .* by the endpoint's circuit/);
    const [view] = w.sandbox.inspector.tenant(w.sandbox.tenantId).webhook_endpoints;
    expect(view?.circuit).toEqual({ state: 'open', consecutive_failures: 8, open_until: openUntil, deferred: 12 });
  });

  it('half-opens after the cool-down: one trial goes, the others wait for it; its answer closes the circuit and releases them at once', async () => {
    const w = await opening();
    // At the end of the cool-down the 8 retries and the 12 delayed attempts are all due.
    const advancing = w.sandbox.clock.advance({ seconds: DEFAULT_CIRCUIT.cooldownSeconds });
    await until(() => w.held.length === 1, 'the trial in flight');
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 0));
    expect(w.held).toHaveLength(1); // the trial alone
    expect(w.sandbox.inspector.tenant(w.sandbox.tenantId).webhook_endpoints[0]?.circuit).toMatchObject({ state: 'half_open', deferred: 19 });
    w.mode = 'answer';
    w.answer(200);
    await advancing;
    const list = await deliveries(w.client, w.endpoint.id);
    expect(list.every((d) => d.status === 'succeeded' && d.deferred === null)).toBe(true);
    // No attempt lost, none added: the 8 that failed once made their retry, the 12 delayed their first attempt.
    expect(list.filter((d) => d.attempt_count === 2)).toHaveLength(8);
    expect(list.filter((d) => d.attempt_count === 1)).toHaveLength(12);
    for (const d of list) expect(d.attempts.at(-1)?.attempted_at).toBe(iso(T0 + 30_000));
    expect(w.sandbox.inspector.tenant(w.sandbox.tenantId).webhook_endpoints[0]?.circuit).toEqual({ state: 'closed', consecutive_failures: 0, open_until: null, deferred: 0 });
  });

  it('a trial without an answer opens it again, for twice as long, and delays what waited for it to then', async () => {
    const w = await opening();
    const advancing = w.sandbox.clock.advance({ seconds: DEFAULT_CIRCUIT.cooldownSeconds });
    await until(() => w.held.length === 1, 'the trial in flight');
    w.timeOut();
    await advancing;
    expect(w.held).toHaveLength(0);
    const reopened = T0 + 30_000 + 2 * DEFAULT_CIRCUIT.cooldownSeconds * 1000;
    const list = await deliveries(w.client, w.endpoint.id);
    const trial = list.filter((d) => d.attempt_count === 2);
    expect(trial).toHaveLength(1);
    // The trial's own retry follows the schedule (2 min after it), past the circuit's new end.
    expect(trial[0]).toMatchObject({ next_attempt_at: iso(T0 + 30_000 + RETRY_SCHEDULE_SECONDS[1]! * 1000), deferred: null });
    const waited = list.filter((d) => d.attempt_count !== 2);
    expect(waited).toHaveLength(19);
    for (const d of waited) {
      expect(d.next_attempt_at).toBe(iso(reopened));
      // The instant the schedule made it due stays the first one.
      expect(d.deferred?.reason).toBe('circuit_open');
      expect(d.deferred?.scheduled_at).toBe(iso(d.attempt_count === 0 ? T0 : T0 + 30_000));
    }
    expect(w.sandbox.inspector.tenant(w.sandbox.tenantId).webhook_endpoints[0]?.circuit).toEqual({ state: 'open', consecutive_failures: 9, open_until: iso(reopened), deferred: 19 });
  });

  it('keeps the reference schedule: each delivery to an endpoint that never answers still gets its 7 attempts, each wait at least the schedule\'s', async () => {
    const w = await world({ webhooks: { concurrency: { perEndpoint: 1 } } });
    w.mode = 'fail';
    await users(w.client, 8);
    // Long enough for every delivery's whole schedule, however the circuit delays it.
    await w.sandbox.clock.advance({ days: 14 });
    const list = await deliveries(w.client, w.endpoint.id);
    expect(list).toHaveLength(8);
    for (const d of list) {
      expect(d).toMatchObject({ status: 'failed', attempt_count: RETRY_SCHEDULE_SECONDS.length + 1, next_attempt_at: null, deferred: null });
      const at = d.attempts.map((a) => Date.parse(a.attempted_at));
      for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(RETRY_SCHEDULE_SECONDS[i - 1]! * 1000);
    }
    // Some attempts were delayed by the circuit: not every delivery's first attempt left at T0.
    expect(list.filter((d) => Date.parse(d.attempts[0]!.attempted_at) > T0).length).toBeGreaterThan(0);
    expect(w.sent).toHaveLength(8 * (RETRY_SCHEDULE_SECONDS.length + 1));
  });

  it('stays closed for an endpoint that answers, whatever the status, and when turned off', async () => {
    const answering = await world();
    await users(answering.client, 12);
    await until(() => answering.held.length === 4, 'four attempts in flight');
    for (let i = 0; i < 12; i++) {
      answering.answer(500);
      await until(() => answering.held.length > 0 || i === 11, 'the next attempt');
    }
    await answering.sandbox.webhooks.flush();
    expect((await deliveries(answering.client, answering.endpoint.id)).every((d) => d.attempt_count === 1 && d.deferred === null)).toBe(true);

    const off = await world({ webhooks: { circuit: false } });
    off.mode = 'fail';
    await users(off.client, 12);
    await off.sandbox.webhooks.flush();
    expect(off.sent).toHaveLength(12);
    expect((await deliveries(off.client, off.endpoint.id)).every((d) => d.attempt_count === 1 && d.deferred === null)).toBe(true);
  });

  it('starts closed again for an endpoint given a new URL, and redelivery and new events wait for an open circuit', async () => {
    const w = await opening();
    // A redelivery of a delayed one is delayed too (no attempt made against an open circuit).
    const delayed = (await deliveries(w.client, w.endpoint.id)).find((d) => d.attempt_count === 0)!;
    const redelivered = await w.client.webhookDeliveries.redeliver(delayed.id);
    expect(redelivered).toMatchObject({ attempt_count: 0, next_attempt_at: iso(T0 + 30_000), deferred: { reason: 'circuit_open' } });
    await users(w.client, 1, 100);
    await w.sandbox.webhooks.flush();
    expect(w.sent).toHaveLength(8);
    // The receiver moved: the next event goes at once, and so does everything the old URL's circuit delayed.
    await w.client.webhookEndpoints.update(w.endpoint.id, { url: 'https://moved.example/hook' });
    w.mode = 'answer';
    await users(w.client, 1, 200);
    await w.sandbox.webhooks.flush();
    const list = await deliveries(w.client, w.endpoint.id);
    expect(list.filter((d) => d.status === 'succeeded')).toHaveLength(14);
    expect(list.filter((d) => d.deferred !== null)).toHaveLength(0);
  });

  it("shows the delay in the inspector's delivery view of a conversion", async () => {
    const t = controlled();
    const { sandbox, client } = setup({ webhookTransport: t.transport, webhooks: { circuit: { failures: 1 } } });
    opened.push(sandbox);
    t.mode = 'fail';
    await client.webhookEndpoints.create({ url: DEAD, event_types: ['*'] });
    const userId = await approvedUser(client, 1);
    const quote = await client.quotes.create(onramp(userId));
    const conversion = await client.quotes.accept(quote.id);
    await sandbox.webhooks.flush();
    const page = sandbox.inspector.conversion(sandbox.tenantId, conversion.id);
    const delivery = page?.timeline[0]?.deliveries[0];
    expect(delivery).toMatchObject({ status: 'pending', attempts: [], next_attempt_at: iso(T0 + 30_000), deferred: { reason: 'circuit_open', scheduled_at: iso(T0) } });
  });

  it('refuses options that make no sense', () => {
    expect(() => setup({ webhooks: { circuit: { failures: 0 } } })).toThrow(/circuit.failures must be a positive integer/);
    expect(() => setup({ webhooks: { circuit: { cooldownSeconds: -1 } } })).toThrow(/circuit.cooldownSeconds must be a positive number/);
    expect(() => setup({ webhooks: { circuit: { cooldownSeconds: 60, maxCooldownSeconds: 30 } } })).toThrow(/maxCooldownSeconds/);
  });
});
