/**
 * The app's pipeline as http/ states it: the API key rule a Worker in front of the sandbox calls
 * too (readApiKey, API_KEY_REFUSALS), the stages in order with idempotency expiry a stage of its
 * own, and the types that say what each stage established (http/call.ts, http/routes/types.ts).
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { API_KEY_REFUSALS, type ApiKeyRefusal, type Sandbox, createSandbox, readApiKey } from '../../../src/sandbox/index.js';
import { type AppCall, type AuthenticatedCall, type Check, Pipeline, type RoutedCall } from '../../../src/sandbox/http/call.js';
import type { RouteContext } from '../../../src/sandbox/http/routes/types.js';
import { STAGES } from '../../../src/sandbox/http/stages.js';
import { snapshotRecords } from '../../support/records.js';
import { raw } from '../raw.js';
import { cpf } from '../../support/fixtures.js';

const NOW = '2026-05-01T00:00:00Z';
const TEST_KEY = `sk_test_${'a1'.repeat(16)}`;
const LIVE_KEY = `sk_live_${'b2'.repeat(16)}`;

describe('readApiKey: the one rule for an API key before any tenant answers', () => {
  it('answers the key of a Bearer header of the API key form and this environment', () => {
    expect(readApiKey(`Bearer ${TEST_KEY}`)).toBe(TEST_KEY);
    expect(readApiKey(`Bearer ${LIVE_KEY}`, 'production')).toBe(LIVE_KEY);
  });

  it.each<[string, string | null, 'sandbox' | 'production', ApiKeyRefusal]>([
    ['no header', null, 'sandbox', API_KEY_REFUSALS.required],
    ['another scheme', `Basic ${TEST_KEY}`, 'sandbox', API_KEY_REFUSALS.required],
    ['a lower-case scheme', `bearer ${TEST_KEY}`, 'sandbox', API_KEY_REFUSALS.required],
    ['a key too short', 'Bearer sk_test_abc', 'sandbox', API_KEY_REFUSALS.malformed],
    ['a key with a stray character', `Bearer ${TEST_KEY.slice(0, -1)}-`, 'sandbox', API_KEY_REFUSALS.malformed],
    ['a space after the key', `Bearer ${TEST_KEY} `, 'sandbox', API_KEY_REFUSALS.malformed],
    ['a live key in the sandbox', `Bearer ${LIVE_KEY}`, 'sandbox', API_KEY_REFUSALS.otherEnvironment.sandbox],
    ['a test key in production', `Bearer ${TEST_KEY}`, 'production', API_KEY_REFUSALS.otherEnvironment.production],
  ])('refuses %s', (_, header, environment, refusal) => {
    expect(readApiKey(header, environment)).toBe(refusal);
  });

  it('has three refusals for a Worker to answer, each a 401 with its code and a message without the key', () => {
    expect([API_KEY_REFUSALS.required, API_KEY_REFUSALS.malformed, API_KEY_REFUSALS.unknown]).toEqual([
      { status: 401, code: 'authentication_required', message: 'Send the header Authorization: Bearer <API key>.' },
      { status: 401, code: 'invalid_api_key_format', message: 'The API key is malformed.' },
      { status: 401, code: 'authentication_failed', message: 'The API key is unknown or revoked.' },
    ]);
    expect(API_KEY_REFUSALS.otherEnvironment.sandbox).toMatchObject({ status: 401, code: 'api_key_env_mismatch' });
    expect(Object.isFrozen(API_KEY_REFUSALS.unknown) && Object.isFrozen(API_KEY_REFUSALS.otherEnvironment)).toBe(true);
  });

  it('is what the sandbox answers, code and message, for every refusal of a key', async () => {
    const sb = createSandbox({ now: NOW });
    const revoked = sb.createTenant({ capabilities: ['api_keys:read', 'api_keys:write'] });
    const list = await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: revoked.apiKey });
    expect((await raw(sb, 'POST', `/v1/api-keys/${list.body.data[0].id}/rotate`, undefined, { apiKey: revoked.apiKey })).status).toBe(200);
    const cases: Array<[Record<string, string>, ApiKeyRefusal]> = [
      [{}, API_KEY_REFUSALS.required],
      [{ authorization: 'Bearer sk_test_abc' }, API_KEY_REFUSALS.malformed],
      [{ authorization: `Bearer ${LIVE_KEY}` }, API_KEY_REFUSALS.otherEnvironment.sandbox],
      [{ authorization: `Bearer ${TEST_KEY}` }, API_KEY_REFUSALS.unknown],
      [{ authorization: `Bearer ${revoked.apiKey}` }, API_KEY_REFUSALS.unknown],
    ];
    for (const [headers, refusal] of cases) {
      const answer = await raw(sb, 'GET', '/v1/users', undefined, { apiKey: null, headers });
      expect({ status: answer.status, code: answer.body.code, message: answer.body.message }).toEqual({ ...refusal });
    }
  });
});

describe('the stages', () => {
  it('run in the documented order, idempotency expiry a stage of its own right after authentication', () => {
    expect(STAGES.map((s) => s.name)).toEqual(['authenticate', 'expire_idempotency', 'route', 'authorize', 'idempotency', 'validate', 'rate_limit', 'execute']);
  });

  const keysOf = (sb: Sandbox, tenantId: string): string[] => snapshotRecords(sb.snapshot()).tenants.find((t) => t.id === tenantId)?.idempotency.map((r) => r.key) ?? [];

  // A tenant whose key can rotate keys (an idempotent mutation) and nothing else, with one record stored 61 s past a 60 s TTL.
  async function storedThenDue(): Promise<{ sb: Sandbox; tenantId: string; apiKey: string }> {
    const sb = createSandbox({ now: NOW, idempotencyTtlSeconds: 60 });
    const tenant = sb.createTenant({ capabilities: ['api_keys:read', 'api_keys:write'] });
    const list = await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: tenant.apiKey });
    const rotated = await raw(sb, 'POST', `/v1/api-keys/${list.body.data[0].id}/rotate`, undefined, { apiKey: tenant.apiKey, idempotencyKey: 'stored' });
    expect(rotated.status).toBe(200);
    await tenant.clock.advance({ seconds: 61 });
    expect(keysOf(sb, tenant.tenantId)).toEqual(['stored']);
    return { sb, tenantId: tenant.tenantId, apiKey: rotated.body.api_key as string };
  }

  it.each([
    ['an unknown route (404)', 'GET', '/v1/nothing', 404],
    ['a missing capability (403)', 'GET', '/v1/users', 403],
    ['an invalid query (400)', 'GET', '/v1/api-keys?limit=0', 400],
  ])('expire a tenant\'s due idempotency records for a request that then fails at %s', async (_, method, path, status) => {
    const { sb, tenantId, apiKey } = await storedThenDue();
    expect((await raw(sb, method, path, undefined, { apiKey })).status).toBe(status);
    expect(keysOf(sb, tenantId)).toEqual([]);
  });

  it('expire nothing for a request refused at authentication', async () => {
    const { sb, tenantId } = await storedThenDue();
    expect((await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: TEST_KEY })).status).toBe(401);
    expect(keysOf(sb, tenantId)).toEqual(['stored']);
  });

  it('wait for a body read in another realm (a vm context, as under jest): a promise of any realm is waited for', async () => {
    const sb = createSandbox({ now: NOW });
    const body = JSON.stringify({ external_id: 'realm', name: 'Realm', document_type: 'cpf', document_number: cpf(2) });
    const headers = { authorization: `Bearer ${sb.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'realm' };
    const request = new Request('https://api.sandbox.test/v1/users', { method: 'POST', headers, body });
    const bytes = await request.clone().arrayBuffer();
    const foreign = runInNewContext('(bytes) => Promise.resolve(bytes)') as (b: ArrayBuffer) => Promise<ArrayBuffer>;
    Object.defineProperty(request, 'arrayBuffer', { value: () => foreign(bytes) });
    const response = await sb.handle(request);
    expect(response.status).toBe(201);
    expect(((await response.json()) as { external_id: string }).external_id).toBe('realm');
  });

  it('hand a middleware inserted before `route` a call that authentication and expiry have seen', async () => {
    const sb = createSandbox({ now: NOW, idempotencyTtlSeconds: 60 });
    await raw(sb, 'POST', '/v1/users', { external_id: 'a', name: 'A', document_type: 'cpf', document_number: cpf(1) }, { idempotencyKey: 'k' });
    await sb.clock.advance({ seconds: 61 });
    const seen: Array<{ tenantId: string | null; records: string[] }> = [];
    sb.use('look', (call, next) => {
      seen.push({ tenantId: call.tenantId, records: keysOf(sb, sb.tenantId) });
      return next();
    }, 'route');
    expect((await raw(sb, 'GET', '/v1/users')).status).toBe(200);
    expect(seen).toEqual([{ tenantId: sb.tenantId, records: [] }]);
  });
});

describe('the types of the pipeline', () => {
  // Checks that only type-check: they never run.
  const needsRoute: Check<RoutedCall> = (call) => call;
  const routes: Check<AuthenticatedCall, RoutedCall> = (call) => call as never;
  const authenticates: Check<AppCall, AuthenticatedCall> = (call) => call as never;

  it('refuse a stage placed before the stage that establishes what it reads', () => {
    const ordered = Pipeline.start().check('authenticate', authenticates).check('route', routes).check('authorize', needsRoute);
    // @ts-expect-error authorizing needs a routed call: it cannot come before `route`
    const misordered = Pipeline.start().check('authenticate', authenticates).check('authorize', needsRoute);
    expect([ordered.stages.length, misordered.stages.length]).toEqual([3, 2]);
  });

  it('give a route the platform as far as routes need it, not every tenant', () => {
    const reach = (ctx: RouteContext): unknown[] => [
      ctx.platform.random,
      ctx.platform.cursorSecret,
      // @ts-expect-error a route does not reach the platform's tenants (RoutePlatform)
      ctx.platform.tenants,
      // @ts-expect-error nor the key lookup of authentication
      ctx.platform.keyOf,
    ];
    expect(reach).toBeTypeOf('function');
  });
});
