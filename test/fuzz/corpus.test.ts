/**
 * A fixed corpus of nasty requests (the generator's worst cases, spelled out), and the checks
 * of the envelope checker itself, so that the fuzzer is known to be able to fail.
 */
import { describe, expect, it } from 'vitest';
import { envelopeProblem } from './envelope.js';
import { createFuzzWorld, visibleState } from './world.js';

const O = 'https://sandbox.pix-usdt.local';

describe('nasty corpus', () => {
  it('each answers a 4xx envelope and changes nothing', async () => {
    const { sandbox, keys } = await createFuzzWorld();
    const auth = { authorization: `Bearer ${keys.valid}` };
    const post = (path: string, body: string, extra: Record<string, string> = {}): Request =>
      new Request(O + path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID(), ...extra }, body });
    const userId = keys.ownIds[0] as string;
    const corpus: Array<[string, Request]> = [
      ['no auth', new Request(`${O}/v1/users`)],
      ['key of another environment', new Request(`${O}/v1/users`, { headers: { authorization: `Bearer sk_live_${keys.valid.slice(8)}` } })],
      ['lowercase scheme', new Request(`${O}/v1/users`, { headers: { authorization: `bearer ${keys.valid}` } })],
      ['dot-dot out of /v1', new Request(`${O}/v1/users/../../etc/passwd`, { headers: auth })],
      ['encoded dot-dot', new Request(`${O}/v1/%2e%2e/%2e%2e/admin`, { headers: auth })],
      ['encoded slash in id', new Request(`${O}/v1/users/${userId}%2F..%2F..%2Fapi_keys`, { headers: auth })],
      // The router ignores empty segments (`//v1//users` is `/v1/users`): only the unknown id refuses this.
      ['double slashes', new Request(`${O}//v1//users//${keys.foreignIds[0] as string}//wallet`, { headers: auth })],
      ['overlong path', new Request(`${O}/v1/${'x'.repeat(100_000)}`, { headers: auth })],
      ['NUL in id', new Request(`${O}/v1/users/%00`, { headers: auth })],
      ['lone surrogate in id', new Request(`${O}/v1/users/%ED%A0%80`, { headers: auth })],
      ['broken percent escape', new Request(`${O}/v1/users/%E0%A4%A`, { headers: auth })],
      ['__proto__ id', new Request(`${O}/v1/users/__proto__`, { headers: auth })],
      ['another tenant\'s user', new Request(`${O}/v1/users/${keys.foreignIds[0] as string}`, { headers: auth })],
      ['wrong method', new Request(`${O}/v1/quotes`, { method: 'PUT', headers: auth, body: '{}' })],
      ['custom method', new Request(`${O}/v1/users/${userId}`, { method: 'FOO', headers: auth })],
      ['bad JSON', post('/v1/users', '{"external_id":')],
      ['JSON null', post('/v1/users', 'null')],
      ['JSON array', post('/v1/quotes', '[]')],
      ['float amount', post('/v1/quotes', JSON.stringify({ user_id: userId, source_currency: 'BRL', target_currency: 'USDT', source_amount: 540.0 }))],
      ['prototype pollution', post('/v1/users', '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}')],
      ['deep nesting', post('/v1/users', `${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
      ['deep object', post('/v1/users', `{"metadata":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`)],
      ['over 1 MB', post('/v1/users', JSON.stringify({ name: 'a'.repeat(1_100_000) }))],
      ['BOM then JSON', post('/v1/users', '\ufeff{}')],
      ['missing idempotency key', new Request(`${O}/v1/users`, { method: 'POST', headers: auth, body: '{}' })],
      ['overlong idempotency key', post('/v1/users', '{}', { 'idempotency-key': 'k'.repeat(256) })],
      ['KYC helper, wrong status', post(`/v1/test_helpers/users/${userId}/kyc`, '{"status":"approved ","x":1}')],
      ['advance the clock backwards', post('/v1/test_helpers/clock/advance', '{"seconds":-1}')],
      ['advance the clock by a string', post('/v1/test_helpers/clock/advance', '{"seconds":"60"}')],
      ['tenant with unknown capability', post('/v1/test_helpers/tenants', '{"capabilities":["root"]}')],
      ['limit 0', new Request(`${O}/v1/users?limit=0`, { headers: auth })],
      ['limit 101', new Request(`${O}/v1/users?limit=101`, { headers: auth })],
      ['forged cursor', new Request(`${O}/v1/conversions?cursor=eyJzZXEiOjB9`, { headers: auth })],
      ['unknown status filter', new Request(`${O}/v1/conversions?status=done`, { headers: auth })],
      ['powerless key', new Request(`${O}/v1/users`, { headers: { authorization: `Bearer ${keys.powerless}` } })],
    ];
    const before = visibleState(sandbox);
    for (const [name, request] of corpus) {
      const response = await sandbox.handle(request);
      expect(await envelopeProblem(response), name).toBeNull();
    }
    expect(visibleState(sandbox) === before, 'the visible state changed').toBe(true);
  });
});

describe('the envelope check', () => {
  const envelope = (status: number, body: unknown, id = 'req_0123456789abcdef0123456789abcdef', headers: Record<string, string> = {}): Response =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', 'x-request-id': id, ...headers } });
  const good = { code: 'not_found', message: 'No route.', request_id: 'req_0123456789abcdef0123456789abcdef' };

  it('accepts a proper 4xx envelope, and a replay with the first request id', async () => {
    expect(await envelopeProblem(envelope(404, good))).toBeNull();
    expect(await envelopeProblem(envelope(400, good, 'req_ffffffffffffffffffffffffffffffff', { 'idempotent-replayed': 'true' }))).toBeNull();
  });

  it('refuses 2xx, 5xx, a mismatched request id, a missing code, extra fields, non-JSON', async () => {
    expect(await envelopeProblem(envelope(200, good))).toMatch(/status/);
    expect(await envelopeProblem(envelope(500, { ...good, code: 'internal_error' }))).toMatch(/status/);
    expect(await envelopeProblem(envelope(400, good, 'req_ffffffffffffffffffffffffffffffff'))).toMatch(/request_id/);
    expect(await envelopeProblem(envelope(400, { message: 'x', request_id: good.request_id }))).toMatch(/code/);
    expect(await envelopeProblem(envelope(400, { ...good, stack: 'at x' }))).toMatch(/unexpected/);
    expect(await envelopeProblem(new Response('oops', { status: 400, headers: { 'content-type': 'application/json', 'x-request-id': good.request_id } }))).toMatch(/JSON/);
  });
});
