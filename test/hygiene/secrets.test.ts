/**
 * Secret hygiene (issue 6), in process: a run that exercises failures (a malformed key, an
 * unknown key, a key revoked by rotation, 401/403/404/409/400s, retried 503s and network
 * errors, webhook signature failures) and then searches every error, every client event, the
 * client itself, every sandbox event, every answer body of the sandbox and the webhook
 * delivery records for API keys and webhook secrets.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { constructEvent, signPayload, verifySignature } from '../../src/webhooks/index.js';
import { leaks } from './leaks.js';

const MALFORMED = 'sk_test_thisKeyIsMalformed!!';
const UNKNOWN = `sk_test_${'Q'.repeat(16)}${'z'.repeat(16)}`;

describe('secret hygiene', () => {
  it('no API key or webhook secret in errors, client events, the client, sandbox events or answers', async () => {
    const sandbox = createSandbox({ seed: 'hygiene', now: '2026-03-02T12:00:00.000Z' });
    const original = sandbox.apiKey;
    const secrets = [original, MALFORMED, UNKNOWN];
    const logged: Array<[string, unknown]> = [];
    const answers: string[] = [];
    // Every answer body the sandbox gives, and a flaky first attempt per call (503, then a network error).
    let flaky = 0;
    const fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
      flaky++;
      if (flaky % 7 === 1) return new Response(JSON.stringify({ code: 'service_unavailable', message: 'Try again.', request_id: 'req_flaky' }), { status: 503, headers: { 'content-type': 'application/json' } });
      if (flaky % 7 === 2) throw new TypeError('fetch failed');
      const response = await sandbox.fetch(input, init);
      answers.push(await response.clone().text());
      return response;
    };
    const make = (apiKey: string, maxRetries = 3): PixUsdt => {
      const client = new PixUsdt({ apiKey, fetch, maxRetries, sleep: () => Promise.resolve() });
      for (const name of ['request', 'response', 'retry', 'warning'] as const) client.on(name, (event: unknown) => logged.push([`client ${name} event`, event]));
      return client;
    };
    const client = make(original);
    const errors: Array<[string, unknown]> = [];
    const fail = async (what: string, op: () => PromiseLike<unknown>): Promise<void> => {
      const error = await op().then(
        () => null,
        (e: unknown) => e,
      );
      expect(error, `${what} should fail`).not.toBeNull();
      errors.push([what, error]);
    };

    // Webhook endpoint, its secret, its rotation.
    const endpoint = await client.webhookEndpoints.create({ url: 'https://partner.example/hooks', event_types: ['conversion.created', 'user.kyc_pending'] });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id);
    secrets.push(endpoint.secret, rotated.secret);

    // Business traffic, with failures of every family.
    const user = await client.users.create({ external_id: 'h-1', name: 'Hygiene', document_type: 'cpf', document_number: '52998224725' });
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const quote = await client.quotes.create({ user_id: user.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '10.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' });
    await client.quotes.accept(quote.id);
    await fail('409 quote consumed', () => client.quotes.accept(quote.id));
    await fail('404 user', () => client.users.retrieve('00000000-0000-4000-8000-000000000000'));
    await fail('400 validation', () => client.users.create({ external_id: '', name: '', document_type: 'cpf', document_number: '1' }));
    await fail('malformed key', async () => make(MALFORMED).users.list()); // refused by the constructor
    await fail('unknown key', () => make(UNKNOWN).users.list());
    const powerless = sandbox.createTenant({ capabilities: [] });
    secrets.push(powerless.apiKey);
    await fail('403 missing capability', () => make(powerless.apiKey).users.list());

    // Rotation: the old key is revoked and refused afterwards.
    const keys = await client.apiKeys.list();
    const current = keys.data[0];
    if (!current) throw new Error('no API key listed');
    const fresh = await client.apiKeys.rotate(current.id);
    secrets.push(fresh.api_key);
    await fail('revoked key after rotation', () => client.users.list());
    const next = make(fresh.api_key);
    await next.users.list();
    await fail('404 conversion', () => next.conversions.retrieve('nope'));
    const down = (f: typeof fetch): PixUsdt => new PixUsdt({ apiKey: fresh.api_key, fetch: f, maxRetries: 2, sleep: () => Promise.resolve() });
    await fail('network down, retries exhausted', () => down(() => Promise.reject(new TypeError('fetch failed'))).users.list());
    await fail('503s, retries exhausted', () => down(() => Promise.resolve(new Response('{"code":"service_unavailable","message":"x","request_id":"r"}', { status: 503 }))).users.list());

    // Webhook failures carry no secret either.
    const payload = JSON.stringify({ id: 'evt_1', type: 'conversion.created', created_at: '2026-03-02T12:00:00.000Z', data: { object: {} } });
    const header = await signPayload(payload, endpoint.secret);
    await fail('signature with the wrong secret', () => verifySignature(payload, header, rotated.secret));
    await fail('tampered body', () => verifySignature(`${payload} `, header, endpoint.secret));
    await fail('constructEvent without a signature', () => constructEvent(payload, {}, endpoint.secret));
    await fail('stale timestamp', () => verifySignature(payload, header, endpoint.secret, { now: Date.parse('2026-03-03T12:00:00.000Z') }));

    const deliveries = await next.webhookEndpoints.listDeliveries(endpoint.id);

    const found = [
      ...errors.flatMap(([what, e]) => leaks(`error (${what})`, e, secrets)),
      ...logged.flatMap(([what, e]) => leaks(what, e, secrets)),
      ...leaks('client', client, secrets),
      ...leaks('client (rotated key)', next, secrets),
      ...leaks('sandbox events', sandbox.events(), secrets),
      ...leaks('webhook deliveries', deliveries, secrets),
      // Answers that legitimately carry a secret: the endpoint creation and rotations, the key rotation.
      ...answers
        .filter((a) => !a.includes('"secret"') && !a.includes('"api_key"'))
        .flatMap((a) => leaks(`sandbox answer ${a.slice(0, 60)}`, a, secrets)),
    ];
    expect(found).toEqual([]);
    // The run did exercise what it claims.
    expect(logged.some(([what]) => what === 'client retry event')).toBe(true);
    expect(errors.map(([, e]) => (e as { status?: number }).status)).toEqual(expect.arrayContaining([400, 401, 403, 404, 409]));
    expect(answers.filter((a) => a.includes('"code"')).length).toBeGreaterThan(5);
  });

  it('the detector finds a secret in any rendering (so the test above can fail)', () => {
    const secret = `sk_test_${'A'.repeat(32)}`;
    const error = new Error(`bad key ${secret.slice(8)}`);
    expect(leaks('error', error, [secret])).toHaveLength(1);
    expect(leaks('object', { nested: { deeper: [secret] } }, [secret])).toHaveLength(1);
    class Holder {
      readonly hidden: string;
      constructor() {
        this.hidden = secret;
        Object.defineProperty(this, 'hidden', { enumerable: false });
      }
    }
    expect(leaks('hidden property', new Holder(), [secret])).toHaveLength(1);
    expect(leaks('clean', { ok: true }, [secret])).toEqual([]);
  });
});
