/**
 * Conformance: every error code of the reference's catalog that the engine can produce,
 * with its status, the envelope, and the request id (body and `x-request-id`).
 * internal_error, upstream_unavailable and wallet_provider_unavailable, which no valid or
 * invalid input produces, come from fault injection (the only way the sandbox fails; storage_unavailable from a stored
 * sandbox whose write fails); so does
 * unauthorized, which the sandbox never answers since issue 21 (it told a tenant that an id
 * was another tenant's: every such id answers as one that exists nowhere).
 */
import { describe, expect, it } from 'vitest';
import { type Sandbox, createSandbox, ERROR_STATUS } from '../../../src/sandbox/index.js';
import { type RawAnswer, approvedUser, raw } from '../raw.js';
import { cpf, offrampBody, onrampBody } from '../../support/fixtures.js';
import { storedSandbox } from '../../support/stored.js';

const seen = new Set<string>();

function expectError(answer: RawAnswer, code: keyof typeof ERROR_STATUS): void {
  expect(answer.body?.code, JSON.stringify(answer.body)).toBe(code);
  expect(answer.status).toBe(ERROR_STATUS[code]);
  expect(typeof answer.body.message).toBe('string');
  expect(answer.body.request_id).toMatch(/^req_[0-9a-f]{32}$/);
  expect(answer.headers.get('x-request-id')).toBe(answer.body.request_id);
  expect(answer.headers.get('content-type')).toBe('application/json');
  seen.add(code);
}

function sandbox(): Sandbox {
  return createSandbox({ seed: 'conformance', now: '2026-05-01T00:00:00Z' });
}

describe('error catalog conformance', () => {
  it('authentication: required, format, env mismatch, failed; capability; api_key_not_found (another tenant\'s key too)', async () => {
    const sb = sandbox();
    expectError(await raw(sb, 'GET', '/v1/users', undefined, { apiKey: null }), 'authentication_required');
    expectError(await raw(sb, 'GET', '/v1/users', undefined, { apiKey: null, headers: { authorization: `Basic ${sb.apiKey}` } }), 'authentication_required');
    expectError(await raw(sb, 'GET', '/v1/users', undefined, { apiKey: 'sk_test_short' }), 'invalid_api_key_format');
    expectError(await raw(sb, 'GET', '/v1/users', undefined, { apiKey: `sk_live_${'a'.repeat(32)}` }), 'api_key_env_mismatch');
    expectError(await raw(sb, 'GET', '/v1/users', undefined, { apiKey: `sk_test_${'a'.repeat(32)}` }), 'authentication_failed');
    const limited = sb.createTenant({ capabilities: ['users:read'] });
    expectError(await raw(sb, 'POST', '/v1/users', {}, { apiKey: limited.apiKey }), 'missing_capability');
    const other = sb.createTenant();
    const keys = await raw(sb, 'GET', '/v1/api-keys', undefined, { apiKey: other.apiKey });
    expectError(await raw(sb, 'POST', `/v1/api-keys/${keys.body.data[0].id}/rotate`), 'api_key_not_found');
    expectError(await raw(sb, 'POST', '/v1/api-keys/00000000-0000-4000-8000-000000000000/rotate'), 'api_key_not_found');
  });

  it('request handling: not_found, validation_error, invalid_json, idempotency_key_required, invalid_cursor', async () => {
    const sb = sandbox();
    expectError(await raw(sb, 'GET', '/v1/nothing-here'), 'not_found');
    expectError(await raw(sb, 'PUT', '/v1/users'), 'not_found');
    const invalid = await raw(sb, 'GET', '/v1/users/not-a-uuid');
    expectError(invalid, 'validation_error');
    expect(invalid.body.details.issues).toEqual([{ path: 'id', message: 'Expected a UUID, received "not-a-uuid"' }]);
    expectError(await raw(sb, 'POST', '/v1/users', undefined, { rawBody: '{"name": ' }), 'invalid_json');
    expectError(await raw(sb, 'POST', '/v1/users', {}, { idempotencyKey: null }), 'idempotency_key_required');
    expectError(await raw(sb, 'GET', '/v1/users?cursor=abc'), 'invalid_cursor');
  });

  it('idempotency: reused, in progress', async () => {
    const sb = sandbox();
    const body = { external_id: 'x', name: 'X', document_type: 'cpf', document_number: cpf(3) };
    await raw(sb, 'POST', '/v1/users', body, { idempotencyKey: 'k1' });
    expectError(await raw(sb, 'POST', '/v1/users', { ...body, name: 'Y' }, { idempotencyKey: 'k1' }), 'idempotency_key_reused');
    // A replayed error: its x-request-id and its body's request_id agree (the first request's).
    const bad = { ...body, external_id: 'w', document_number: '123.456.789-00' };
    const firstBad = await raw(sb, 'POST', '/v1/users', bad, { idempotencyKey: 'k3' });
    const replayed = await raw(sb, 'POST', '/v1/users', bad, { idempotencyKey: 'k3' });
    expectError(firstBad, 'invalid_cpf');
    expectError(replayed, 'invalid_cpf');
    expect([replayed.headers.get('idempotent-replayed'), replayed.body.request_id]).toEqual(['true', firstBad.body.request_id]);
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    sb.use('gate', async (call, next) => {
      if (call.path === '/v1/users' && call.method === 'POST') await gate;
      return next();
    }, 'execute');
    const first = raw(sb, 'POST', '/v1/users', { ...body, external_id: 'z', document_number: cpf(4) }, { idempotencyKey: 'k2' });
    expectError(await raw(sb, 'POST', '/v1/users', { ...body, external_id: 'z', document_number: cpf(4) }, { idempotencyKey: 'k2' }), 'idempotency_key_in_progress');
    release();
    expect((await first).status).toBe(201);
  });

  it('resources: not found codes, invalid_cpf, duplicates, pix_key_not_found, limit upgrade', async () => {
    const sb = sandbox();
    const missing = '00000000-0000-4000-8000-000000000000';
    expectError(await raw(sb, 'GET', `/v1/users/${missing}`), 'user_not_found');
    expectError(await raw(sb, 'GET', `/v1/quotes/${missing}`), 'quote_not_found');
    expectError(await raw(sb, 'GET', `/v1/conversions/${missing}`), 'conversion_not_found');
    expectError(await raw(sb, 'GET', `/v1/transactions/${missing}`), 'transaction_not_found');
    expectError(await raw(sb, 'POST', '/v1/users', { external_id: 'a', name: 'A', document_type: 'cpf', document_number: '123.456.789-00' }), 'invalid_cpf');
    const userId = await approvedUser(sb, 1);
    expectError(await raw(sb, 'POST', '/v1/users', { external_id: 'other', name: 'A', document_type: 'cpf', document_number: cpf(1) }), 'duplicate_cpf');
    expectError(await raw(sb, 'POST', '/v1/users', { external_id: 'ext-1', name: 'A', document_type: 'cpf', document_number: cpf(2) }), 'duplicate_external_id');
    expectError(await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: 'nobody@example.com', pix_key_type: 'email' }), 'pix_key_not_found');
    expectError(await raw(sb, 'POST', `/v1/users/${userId}/limit-upgrade-requests`, { reason: 'more' }), 'limit_upgrade_not_available');
  });

  it('state: invalid_transaction_state, quote_already_consumed, quote_expired, transaction_limit_exceeded', async () => {
    const sb = sandbox();
    const userId = await approvedUser(sb, 1);
    const quote = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    const conv = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`, {});
    expectError(await raw(sb, 'POST', `/v1/conversions/${conv.body.id}/liquidate`), 'invalid_transaction_state');
    expectError(await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`, {}), 'quote_already_consumed');
    const old = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    await sb.clock.advance({ minutes: 5 });
    expectError(await raw(sb, 'POST', `/v1/quotes/${old.body.id}/accept`, {}), 'quote_expired');
    const big = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId, '1000000.000000'));
    expectError(await raw(sb, 'POST', `/v1/quotes/${big.body.id}/accept`, {}), 'transaction_limit_exceeded');
  });

  it('liquidation: price_feed_unavailable, operation_support_required', async () => {
    const sb = sandbox();
    const userId = await approvedUser(sb, 1);
    const quote = await raw(sb, 'POST', '/v1/quotes', onrampBody(userId));
    const conv = await raw(sb, 'POST', `/v1/quotes/${quote.body.id}/accept`, {});
    // 1.00 BRL buys less USDT than the withdrawal fee: it cannot be liquidated automatically.
    await raw(sb, 'POST', `/v1/test_helpers/conversions/${conv.body.id}/simulate-onramp-pix-paid`, { amount: '1.00' });
    expectError(await raw(sb, 'POST', `/v1/conversions/${conv.body.id}/liquidate`), 'operation_support_required');
    sb.setPrice({ available: false });
    expectError(await raw(sb, 'POST', `/v1/conversions/${conv.body.id}/liquidate`), 'price_feed_unavailable');
    expectError(await raw(sb, 'POST', '/v1/quotes', onrampBody(userId)), 'price_feed_unavailable');
  });

  it('rate_limit_exceeded with Retry-After and details.retry_after_seconds', async () => {
    const sb = sandbox();
    const userId = await approvedUser(sb, 1);
    for (let i = 0; i < 60; i++) expect((await raw(sb, 'POST', '/v1/quotes', offrampBody(userId))).status).toBe(201);
    await sb.clock.advance({ seconds: 20 });
    const limited = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    expectError(limited, 'rate_limit_exceeded');
    expect(limited.headers.get('retry-after')).toBe('40');
    expect(limited.body.details.retry_after_seconds).toBe(40);
  });

  it('platform failures (injected): internal_error, upstream_unavailable, wallet_provider_unavailable, unauthorized', async () => {
    const sb = sandbox();
    const userId = await approvedUser(sb, 1);
    sb.faults.add({ match: 'GET /v1/users/:id', nth: 1, fault: { type: 'error', code: 'internal_error' } });
    expectError(await raw(sb, 'GET', `/v1/users/${userId}`), 'internal_error');
    sb.faults.add({ match: 'POST /v1/quotes', nth: 1, fault: { type: 'error', code: 'upstream_unavailable', upstream: 'exchange' } });
    const upstream = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId));
    expectError(upstream, 'upstream_unavailable');
    expect(upstream.body.details.upstream).toBe('exchange');
    sb.faults.add({ match: 'GET /v1/users/:id/wallet', nth: 1, fault: { type: 'error', code: 'wallet_provider_unavailable' } });
    expectError(await raw(sb, 'GET', `/v1/users/${userId}/wallet`), 'wallet_provider_unavailable');
    sb.faults.add({ match: 'GET /v1/api-keys', nth: 1, fault: { type: 'error', code: 'unauthorized' } });
    expectError(await raw(sb, 'GET', '/v1/api-keys'), 'unauthorized');
  });

  it('storage_unavailable: a stored sandbox (serve --data) whose write cannot commit', async () => {
    const { sandbox: sb, failing, close } = storedSandbox({ seed: 'conformance', now: '2026-05-01T00:00:00Z' });
    try {
      failing.on = true;
      const refused = await raw(sb, 'POST', '/v1/users', { external_id: 'x', name: 'X', document_type: 'cpf', document_number: cpf(4) });
      expectError(refused, 'storage_unavailable');
      expect(refused.headers.get('retry-after')).toBe('1');
    } finally {
      await close();
    }
  });

  it('tenant_limit_exceeded: a tree of tenants at the server\'s maxTenantsPerRoot (issue 35)', async () => {
    const sb = createSandbox({ seed: 'conformance', now: '2026-05-01T00:00:00Z', maxTenantsPerRoot: 1 });
    expect((await raw(sb, 'POST', '/v1/test_helpers/tenants', {})).status).toBe(201);
    const refused = await raw(sb, 'POST', '/v1/test_helpers/tenants', {});
    expectError(refused, 'tenant_limit_exceeded');
    expect(refused.body.details).toEqual({ limit: 1, reason: 'tenants_per_root' });
  });

  it('webhooks: webhook_endpoint_not_found, webhook_delivery_not_found', async () => {
    const sb = sandbox();
    const unknown = '00000000-0000-4000-8000-000000000000';
    expectError(await raw(sb, 'GET', `/v1/webhook_endpoints/${unknown}`), 'webhook_endpoint_not_found');
    expectError(await raw(sb, 'GET', `/v1/webhook_deliveries/${unknown}`), 'webhook_delivery_not_found');
  });

  it('covers every code of the catalog', () => {
    const missing = Object.keys(ERROR_STATUS).filter((c) => !seen.has(c));
    expect(missing).toEqual([]);
  });
});
