/**
 * The matchers of pix-usdt/testing under vitest: each passes where it should, and each failure
 * (plain and under .not) prints what was there instead.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signPayload } from '../../src/webhooks/index.js';
import { createConversion, createTestSandbox, matchers, type TestSandbox } from '../../src/testing/index.js';

expect.extend(matchers);

const NOW = '2026-03-01T12:00:00Z';
const SECRET = 'whsec_matchers_0123456789abcdefABCDEF';

/** The message of the assertion `run` makes fail. */
async function failure(run: () => unknown): Promise<string> {
  try {
    await run();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the assertion passed');
}

let sandbox: TestSandbox;
let standby: Awaited<ReturnType<typeof createConversion>>;

beforeAll(async () => {
  sandbox = createTestSandbox({ now: NOW, seed: 11 });
  standby = await createConversion(sandbox.client, { status: 'standby', reason: 'under_funded' });
  return () => sandbox.close();
});

describe('toHaveConversionStatus', () => {
  it('passes on the status, and on the status with its reason; takes a scenario answer too', () => {
    expect(standby.conversion).toHaveConversionStatus('standby');
    expect(standby.conversion).toHaveConversionStatus('standby', 'under_funded');
    expect(standby).toHaveConversionStatus('standby');
    expect(standby.conversion).not.toHaveConversionStatus('completed');
  });

  it('fails saying where the conversion is', async () => {
    const id = standby.conversion.id;
    expect(await failure(() => expect(standby.conversion).toHaveConversionStatus('completed'))).toBe(`expected conversion ${id} to be completed, but it is standby (under_funded)`);
    expect(await failure(() => expect(standby.conversion).toHaveConversionStatus('standby', 'over_funded'))).toBe(`expected conversion ${id} to be standby (over_funded), but it is standby (under_funded)`);
    expect(await failure(() => expect(standby.conversion).not.toHaveConversionStatus('standby'))).toBe(`expected conversion ${id} not to be standby, but it is`);
    expect(await failure(() => expect({ id: 'x' }).toHaveConversionStatus('completed'))).toBe('expected a conversion (an object with a status), got an object with keys id');
    expect(await failure(() => expect(undefined).toHaveConversionStatus('completed'))).toBe('expected a conversion (an object with a status), got undefined');
  });
});

describe('toHaveEmittedEvent', () => {
  it('passes on a sandbox, a scenario answer or an array, with or without an object id', () => {
    expect(sandbox).toHaveEmittedEvent('conversion.standby');
    expect(standby).toHaveEmittedEvent('conversion.standby', { objectId: standby.conversion.id });
    expect(sandbox.events()).toHaveEmittedEvent('user.kyc_approved', { objectId: standby.user.id });
    expect(standby).not.toHaveEmittedEvent('conversion.completed');
  });

  it('fails listing the events that were emitted', async () => {
    const c = standby.conversion.id;
    const u = standby.user.id;
    expect(await failure(() => expect(standby).toHaveEmittedEvent('conversion.completed'))).toBe(
      `expected an event conversion.completed; got 4 events: user.kyc_pending (${u}), user.kyc_approved (${u}), conversion.created (${c}), conversion.standby (${c})`,
    );
    expect(await failure(() => expect(standby).toHaveEmittedEvent('conversion.standby', { objectId: 'other' }))).toBe(
      `expected an event conversion.standby for other; got 4 events: user.kyc_pending (${u}), user.kyc_approved (${u}), conversion.created (${c}), conversion.standby (${c}) (conversion.standby was emitted for ${c})`,
    );
    const event = standby.events?.[3];
    expect(await failure(() => expect(standby).not.toHaveEmittedEvent('conversion.standby'))).toBe(`expected no event conversion.standby, but ${event?.id} is one (created ${event?.created_at})`);
    expect(await failure(() => expect([]).toHaveEmittedEvent('conversion.created'))).toBe('expected an event conversion.created; got no events at all');
    expect(await failure(() => expect({ events: null }).toHaveEmittedEvent('conversion.created'))).toMatch(/^its events are null: the deployment does not list events/);
    expect(await failure(() => expect(42).toHaveEmittedEvent('conversion.created'))).toBe("expected an array of events, a scenario's answer or a sandbox, got number 42");
  });
});

describe('toBeApiError', () => {
  it('passes on the code, with .rejects too', async () => {
    await expect(sandbox.client.conversions.liquidate(standby.conversion.id, {}).then(() => sandbox.client.conversions.cancel(standby.conversion.id))).rejects.toBeApiError('invalid_transaction_state');
    await expect(sandbox.client.users.retrieve('00000000-0000-4000-8000-000000000000')).rejects.not.toBeApiError('quote_expired');
  });

  it('fails saying which error it was, or that there was none', async () => {
    const error = await sandbox.client.users.retrieve('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    const request = (error as { requestId: string }).requestId;
    expect(await failure(() => expect(error).toBeApiError('quote_expired'))).toBe(`expected the API error quote_expired, got NotFoundError 404 user_not_found: No such user., request ${request}`);
    expect(await failure(() => expect(error).not.toBeApiError('user_not_found'))).toMatch(/^expected an error other than the API error user_not_found, got it \(NotFoundError 404 user_not_found: /);
    expect(await failure(() => expect(new TypeError('boom')).toBeApiError('quote_expired'))).toBe('expected the API error quote_expired, got TypeError: boom');
    expect(await failure(() => expect({ id: 1 }).toBeApiError('quote_expired'))).toBe('expected the API error quote_expired, got no error: an object with keys id');
  });
});

describe('toVerifyWithSecret', () => {
  const body = JSON.stringify({ id: 'evt_1', type: 'conversion.completed', created_at: NOW, data: { object: { id: 'c1' } } });

  it('passes on a Request and on { body, headers } signed with the secret', async () => {
    const header = await signPayload(body, SECRET);
    await expect(new Request('https://receiver.test/hook', { method: 'POST', body, headers: { 'x-service-signature': header } })).toVerifyWithSecret(SECRET);
    await expect({ body, headers: { 'X-Service-Signature': header } }).toVerifyWithSecret(SECRET);
    await expect({ body, headers: { 'X-Service-Signature': header } }).not.toVerifyWithSecret('whsec_another_secret_0123456789');
  });

  it('fails with the verification\'s reason, and never prints the secret', async () => {
    const header = await signPayload(body, SECRET);
    const wrong = 'whsec_another_secret_0123456789';
    const message = await failure(() => expect({ body, headers: { 'X-Service-Signature': header } }).toVerifyWithSecret(wrong));
    expect(message).toMatch(/^expected the webhook request to verify with whsec_\.\.\.6789, but it does not \(no_matching_signature: No signature matches the body with the secret given\)$/);
    expect(message).not.toContain(wrong);
    const old = await signPayload(body, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect(await failure(() => expect({ body, headers: { 'X-Service-Signature': old } }).toVerifyWithSecret(SECRET))).toMatch(/^expected the webhook request to verify with whsec_\.\.\.CDEF, but it does not \(timestamp_too_old: Signed 360[0-9] s ago, beyond the tolerance of 300 s\)$/);
    const not = await failure(() => expect({ body, headers: { 'X-Service-Signature': header } }).not.toVerifyWithSecret(SECRET));
    expect(not).toBe('expected the webhook request not to verify with whsec_...CDEF, but it does (event evt_1, conversion.completed)');
    expect(not).not.toContain(SECRET);
    expect(await failure(() => expect('body').toVerifyWithSecret(SECRET))).toBe('expected a webhook request (a Request, or { body, headers }), got string "body"');
  });

  it('verifies what the sandbox delivers', async () => {
    await using local = createTestSandbox({ now: NOW });
    const requests: Request[] = [];
    local.webhooks.listen('https://receiver.test/hook', (request) => void requests.push(request));
    const endpoint = await local.client.webhookEndpoints.create({ url: 'https://receiver.test/hook', event_types: ['*'] });
    await createConversion(local.client, { status: 'expired' });
    await local.webhooks.flush();
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) await expect(request).toVerifyWithSecret(endpoint.secret);
  });
});
