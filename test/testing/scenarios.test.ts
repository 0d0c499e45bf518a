/**
 * The scenario builders of pix-usdt/testing: every state of the conversion machine in both
 * directions (each reason of standby and failed), the events each caused (checked against the
 * sandbox's own log), and the refusals.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt, type ConversionStatus } from '../../src/index.js';
import { CONVERSION_STATUSES, FAILURE_REASONS, STANDBY_REASONS } from '../../src/models/public.js';
import { OFFRAMP_ONLY_STANDBY_REASONS, ScenarioError, approvedUser, createConversion, createTestSandbox, createUser, runTrigger, TRIGGERS, type Direction, type ScenarioStep } from '../../src/testing/index.js';

const NOW = '2026-03-01T12:00:00Z';

type Case = [Direction, ConversionStatus, string | undefined];
const cases: Case[] = [];
for (const direction of ['onramp', 'offramp'] as const) {
  for (const status of CONVERSION_STATUSES) {
    const reasons: Array<string | undefined> = status === 'standby' ? [...STANDBY_REASONS] : status === 'failed' ? [...FAILURE_REASONS] : [undefined];
    for (const reason of reasons) {
      if (direction === 'onramp' && status === 'standby' && OFFRAMP_ONLY_STANDBY_REASONS.includes(reason as never)) continue;
      cases.push([direction, status, reason]);
    }
  }
}

describe('createConversion', () => {
  it('covers every state of the machine in both directions', () => {
    expect(new Set(cases.map(([, status]) => status))).toEqual(new Set(CONVERSION_STATUSES));
    expect(cases.length).toBe(2 * (CONVERSION_STATUSES.length - 2) + 2 * FAILURE_REASONS.length + STANDBY_REASONS.length + (STANDBY_REASONS.length - OFFRAMP_ONLY_STANDBY_REASONS.length));
  });

  it.each(cases)('%s to %s %s: there, and answers every event it caused', async (direction, status, reason) => {
    await using sandbox = createTestSandbox({ now: NOW, seed: 7 });
    const steps: string[] = [];
    const result = await createConversion(sandbox.client, { status, reason, direction, onStep: (s: ScenarioStep) => steps.push(s.detail) } as never);
    const fresh = await sandbox.client.conversions.retrieve(result.conversion.id);
    expect(fresh.status).toBe(status);
    if (status === 'standby') expect(fresh.standby_reason).toBe(reason);
    if (status === 'failed') expect(fresh.failure_reason).toBe(reason);
    expect(fresh.transaction_type).toBe(direction === 'onramp' ? 'pix_onramp' : 'pix_offramp');
    expect(result.quote.id).toBe(fresh.quote_id);
    expect(result.user.kyc_status).toBe('approved');
    // Nothing else happened in this tenant: the scenario's events are the whole log.
    expect(result.events).toEqual(sandbox.events());
    expect(result.steps.map((s) => s.detail)).toEqual(steps);
    expect(steps.at(-1)).toContain(status);
  });

  it('answers the reference\'s events in order for the paths partners test most', async () => {
    const types = async (options: Parameters<typeof createConversion>[1]): Promise<string[]> => {
      await using sandbox = createTestSandbox({ now: NOW });
      return ((await createConversion(sandbox.client, options)).events ?? []).map((e) => e.type);
    };
    const start = ['user.kyc_pending', 'user.kyc_approved', 'conversion.created'];
    expect(await types({ status: 'completed' })).toEqual([...start, 'transaction.completed', 'conversion.completed']);
    expect(await types({ status: 'completed', direction: 'offramp' })).toEqual([...start, 'transaction.sending_pix', 'conversion.completed']);
    expect(await types({ status: 'abandoned' })).toEqual([...start, 'conversion.standby', 'conversion.abandoned']);
    expect(await types({ status: 'failed', reason: 'pix_send_failed', direction: 'offramp' })).toEqual([...start, 'transaction.sending_pix', 'conversion.failed']);
  });

  it('leaves out events of other objects recorded meanwhile, and uses a given user', async () => {
    await using sandbox = createTestSandbox({ now: NOW });
    const { user } = await approvedUser(sandbox.client, { externalId: 'mine' });
    // Another user is created (its user.kyc_pending recorded) between the accept and the cancel.
    const options = sandbox.clientOptions();
    let other = '';
    const busy = new PixUsdt({
      ...options,
      async fetch(input, init) {
        if (String(input).endsWith('/cancel')) other = (await createUser(sandbox.client, { events: false, kyc: 'pending' })).user.id;
        return options.fetch(input, init);
      },
    });
    const result = await createConversion(busy, { status: 'canceled', userId: user.id });
    expect(result.user.id).toBe(user.id);
    expect(result.events?.map((e) => e.type)).toEqual(['conversion.created', 'conversion.canceled']);
    const log = sandbox.events().map((e) => e.data.object['id']);
    expect(log.indexOf(other)).toBeGreaterThan(log.indexOf(result.conversion.id));
    expect(log.lastIndexOf(result.conversion.id)).toBeGreaterThan(log.indexOf(other));
  });

  it('answers events: null where the deployment lists no events, or with events: false', async () => {
    await using sandbox = createTestSandbox({ now: NOW });
    const options = sandbox.clientOptions();
    const noRoute = new PixUsdt({
      ...options,
      fetch: (input, init) => (String(input).includes('/v1/test_helpers/events') ? Promise.resolve(new Response(JSON.stringify({ code: 'not_found', message: 'No route', request_id: 'r' }), { status: 404, headers: { 'content-type': 'application/json' } })) : options.fetch(input, init)),
    });
    expect((await createConversion(noRoute, { status: 'expired' })).events).toBeNull();
    expect((await createUser(sandbox.client, { events: false })).events).toBeNull();
  });

  it('refuses a goal with no path before any call, and says so when the conversion ends elsewhere', async () => {
    await using sandbox = createTestSandbox({ now: NOW });
    await expect(createConversion(sandbox.client, { status: 'standby', reason: 'wrong_address', direction: 'onramp' })).rejects.toThrow('Standby wrong_address happens to offramps only: use the offramp direction.');
    await expect(createConversion(sandbox.client, { status: 'failed', reason: 'bogus' as never })).rejects.toThrow(/Unknown failure reason "bogus"/);
    expect(sandbox.events()).toEqual([]);
    // A deployment whose cancel leaves the conversion where it was (a fault of ours, here).
    const options = sandbox.clientOptions();
    const stuck = new PixUsdt({
      ...options,
      async fetch(input, init) {
        const answer = await options.fetch(input, init);
        if (!String(input).endsWith('/cancel')) return answer;
        const body = (await answer.json()) as Record<string, unknown>;
        return new Response(JSON.stringify({ ...body, status: 'awaiting_deposit' }), { status: answer.status, headers: answer.headers });
      },
    });
    const error = await createConversion(stuck, { status: 'canceled' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).message).toMatch(/^The conversion [0-9a-f-]{36} ended awaiting_deposit, not canceled: the deployment may be configured differently/);
    expect((error as ScenarioError).steps.map((s) => s.object)).toEqual(['user', 'user', 'quote', 'conversion', 'conversion']);
  });
});

describe('createUser', () => {
  it.each(['pending', 'approved', 'rejected', 'in_review', 'expired'] as const)('kyc %s', async (kyc) => {
    await using sandbox = createTestSandbox({ now: NOW });
    const { user, events } = await createUser(sandbox.client, { kyc, name: 'Ana Souza', externalId: `ext-${kyc}` });
    expect([user.kyc_status, user.name, user.external_id]).toEqual([kyc === 'in_review' ? 'pending' : kyc, 'Ana Souza', `ext-${kyc}`]);
    expect(events).toEqual(sandbox.events());
  });
});

describe('runTrigger (what pix-usdt-sandbox trigger runs)', () => {
  it.each(Object.keys(TRIGGERS) as Array<keyof typeof TRIGGERS>)('%s ends in its event', async (name) => {
    await using sandbox = createTestSandbox({ now: NOW });
    const outcome = await runTrigger(sandbox.client, name);
    expect(outcome.events?.at(-1)?.type).toBe(name);
  });

  it('refuses options its scenario does not take', async () => {
    await using sandbox = createTestSandbox({ now: NOW });
    await expect(runTrigger(sandbox.client, 'conversion.completed', { reason: 'under_funded' })).rejects.toThrow('A reason is for conversion.standby and conversion.failed, not conversion.completed.');
    await expect(runTrigger(sandbox.client, 'user.kyc_pending', { userId: 'x' })).rejects.toThrow(/creates a new user/);
    await expect(runTrigger(sandbox.client, 'transaction.sending_pix', { direction: 'onramp' })).rejects.toThrow('transaction.sending_pix runs as offramp, not "onramp".');
    expect(sandbox.events()).toEqual([]);
  });
});
