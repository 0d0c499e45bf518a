/**
 * Request handling: idempotency, cursors, query coercion, authentication rules, capabilities,
 * production mode, API keys, users and Pix key resolution.
 */
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import {
  SANDBOX_PIX_EMAIL,
  SANDBOX_PIX_EVP,
  SANDBOX_PIX_NOT_FOUND_EMAIL,
  SANDBOX_PIX_NOT_FOUND_EVP,
  SANDBOX_PIX_NOT_FOUND_PHONE,
  SANDBOX_PIX_PHONE,
  createSandbox,
} from '../../../src/sandbox/index.js';
import { approvedUser, raw } from '../raw.js';
import { cpf, offrampBody } from '../../support/fixtures.js';

const NOW = '2026-05-01T00:00:00Z';

describe('idempotency', () => {
  it('replays the first answer (status and body) with Idempotent-Replayed, and creates nothing twice', async () => {
    const sb = createSandbox({ now: NOW });
    const body = { external_id: 'a', name: 'A', document_type: 'cpf', document_number: cpf(1) };
    const first = await raw(sb, 'POST', '/v1/users', body, { idempotencyKey: 'same' });
    const again = await raw(sb, 'POST', '/v1/users', body, { idempotencyKey: 'same' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The replay is the first answer, its x-request-id included (docs/decisions.md, Sandbox).
    expect(again.headers.get('x-request-id')).toBe(first.headers.get('x-request-id'));
    expect((await raw(sb, 'GET', '/v1/users')).body.data).toHaveLength(1);
  });

  it('replays errors too, but not 429 or 5xx; records are per tenant and expire after 24 h', async () => {
    const sb = createSandbox({ now: NOW });
    const missing = '00000000-0000-4000-8000-000000000000';
    const e1 = await raw(sb, 'DELETE', `/v1/users/${missing}`, undefined, { idempotencyKey: 'e' });
    const e2 = await raw(sb, 'DELETE', `/v1/users/${missing}`, undefined, { idempotencyKey: 'e' });
    expect(e2.body).toEqual(e1.body);
    expect(e2.headers.get('idempotent-replayed')).toBe('true');

    sb.setPrice({ available: false });
    const userId = await approvedUser(sb, 1);
    const down = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: 'q' });
    expect(down.status).toBe(503);
    sb.setPrice({ available: true });
    const up = await raw(sb, 'POST', '/v1/quotes', offrampBody(userId), { idempotencyKey: 'q' });
    expect(up.status).toBe(201);
    expect(up.headers.get('idempotent-replayed')).toBeNull();

    const other = sb.createTenant();
    const body = { external_id: 'a', name: 'A', document_type: 'cpf', document_number: cpf(5) };
    expect((await raw(sb, 'POST', '/v1/users', body, { idempotencyKey: 'shared', apiKey: other.apiKey })).status).toBe(201);
    const mine = await raw(sb, 'POST', '/v1/users', body, { idempotencyKey: 'shared' });
    expect(mine.status).toBe(201);
    expect(mine.headers.get('idempotent-replayed')).toBeNull();

    const different = { ...body, external_id: 'b', document_number: cpf(6) };
    expect((await raw(sb, 'POST', '/v1/users', different, { idempotencyKey: 'shared' })).body.code).toBe('idempotency_key_reused');
    await sb.clock.advance({ hours: 24 });
    expect((await raw(sb, 'POST', '/v1/users', different, { idempotencyKey: 'shared' })).status).toBe(201);
  });

  it('the KYC helper and the sandbox extensions take no Idempotency-Key', async () => {
    const sb = createSandbox({ now: NOW });
    const user = await raw(sb, 'POST', '/v1/users', { external_id: 'a', name: 'A', document_type: 'cpf', document_number: cpf(1) });
    expect((await raw(sb, 'POST', `/v1/test_helpers/users/${user.body.id}/kyc`, { status: 'approved' }, { idempotencyKey: null })).status).toBe(200);
    expect((await raw(sb, 'POST', '/v1/test_helpers/clock/advance', { seconds: 90 }, { idempotencyKey: null })).body).toEqual({ now: '2026-05-01T00:01:30.000Z' });
    expect((await raw(sb, 'GET', '/v1/test_helpers/clock')).body).toEqual({ now: '2026-05-01T00:01:30.000Z' });
    const tenant = await raw(sb, 'POST', '/v1/test_helpers/tenants', { capabilities: ['users:read'] }, { idempotencyKey: null });
    expect(tenant.status).toBe(201);
    expect(tenant.body.api_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(tenant.body.api_keys).toEqual([expect.objectContaining({ capabilities: ['users:read'], api_key: tenant.body.api_key })]);
    expect((await raw(sb, 'GET', '/v1/users', undefined, { apiKey: tenant.body.api_key })).body.data).toEqual([]);
    expect((await raw(sb, 'POST', '/v1/test_helpers/tenants', { capabilities: ['nope'] })).body.code).toBe('validation_error');
  });
});

describe('listings', () => {
  it('pages newest first with opaque, tamper-evident cursors bound to their filters; limit is coerced', async () => {
    const sb = createSandbox({ now: NOW, seed: 3 });
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) {
      ids.push((await raw(sb, 'POST', '/v1/users', { external_id: `u${i}`, name: 'U', document_type: 'cpf', document_number: cpf(i) })).body.id);
    }
    const p1 = await raw(sb, 'GET', '/v1/users?limit=2');
    expect(p1.body.data.map((u: { id: string }) => u.id)).toEqual([ids[4], ids[3]]);
    const p2 = await raw(sb, 'GET', `/v1/users?limit=2&cursor=${p1.body.next_cursor}`);
    expect(p2.body.data.map((u: { id: string }) => u.id)).toEqual([ids[2], ids[1]]);
    const p3 = await raw(sb, 'GET', `/v1/users?limit=2&cursor=${p2.body.next_cursor}`);
    expect(p3.body).toMatchObject({ data: [{ id: ids[0] }], next_cursor: null });
    const cursor: string = p1.body.next_cursor;
    const tampered = cursor.slice(0, -2) + (cursor.endsWith('A') ? 'BB' : 'AA');
    expect((await raw(sb, 'GET', `/v1/users?limit=2&cursor=${tampered}`)).body.code).toBe('invalid_cursor');
    expect((await raw(sb, 'GET', `/v1/users?kyc_status=pending&cursor=${cursor}`)).body.code).toBe('invalid_cursor');
    for (const bad of ['0', '101', 'abc', '1.5']) expect((await raw(sb, 'GET', `/v1/users?limit=${bad}`)).body.code).toBe('validation_error');
  });

  it('users filters: kyc_status, cpf (with punctuation), external_id; deleted users are gone', async () => {
    const sb = createSandbox({ now: NOW });
    const a = await approvedUser(sb, 1);
    const b = (await raw(sb, 'POST', '/v1/users', { external_id: 'b', name: 'B', document_type: 'cpf', document_number: cpf(2) })).body.id;
    expect((await raw(sb, 'GET', '/v1/users?kyc_status=approved')).body.data.map((u: { id: string }) => u.id)).toEqual([a]);
    const digits = cpf(2);
    const punctuated = `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
    expect((await raw(sb, 'GET', `/v1/users?cpf=${punctuated}`)).body.data.map((u: { id: string }) => u.id)).toEqual([b]);
    expect((await raw(sb, 'GET', '/v1/users?external_id=ext-1')).body.data.map((u: { id: string }) => u.id)).toEqual([a]);
    const deleted = await raw(sb, 'DELETE', `/v1/users/${b}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeNull();
    expect(deleted.headers.get('x-request-id')).toMatch(/^req_/);
    expect((await raw(sb, 'GET', `/v1/users/${b}`)).body.code).toBe('user_not_found');
    expect((await raw(sb, 'GET', '/v1/users')).body.data.map((u: { id: string }) => u.id)).toEqual([a]);
    // A deleted user keeps its CPF and external_id reserved.
    expect((await raw(sb, 'POST', '/v1/users', { external_id: 'c', name: 'C', document_type: 'cpf', document_number: cpf(2) })).body.code).toBe('duplicate_cpf');
  });
});

describe('users', () => {
  it('masks the document, never returns it, updates fields but not the document, and has a wallet', async () => {
    const sb = createSandbox({ now: NOW });
    const digits = cpf(7);
    const user = await raw(sb, 'POST', '/v1/users', { external_id: 'a', name: 'A', document_type: 'cpf', document_number: digits, metadata: { k: 'v' } });
    expect(user.body.document_masked).toBe(`***.${digits.slice(3, 6)}.${digits.slice(6, 9)}-**`);
    expect(JSON.stringify(user.body)).not.toContain(digits);
    const updated = await raw(sb, 'PATCH', `/v1/users/${user.body.id}`, { name: 'B', email: 'b@example.com' });
    expect(updated.body).toMatchObject({ name: 'B', email: 'b@example.com', metadata: { k: 'v' } });
    const immutable = await raw(sb, 'PATCH', `/v1/users/${user.body.id}`, { document_number: cpf(8) });
    expect(immutable.body).toMatchObject({ code: 'validation_error', details: { issues: [{ path: 'document_number', message: 'The document is immutable' }] } });
    const wallet = await raw(sb, 'GET', `/v1/users/${user.body.id}/wallet`);
    expect(wallet.body).toMatchObject({ asset: 'USDT', balance: '0.000000', available_balance: '0.000000', network: 'polygon', stale: false });
    expect((await raw(sb, 'POST', '/v1/users/00000000-0000-4000-8000-000000000000/limit-upgrade-requests', {})).body.code).toBe('user_not_found');
  });
});

describe('authentication and keys', () => {
  it('Bearer without the space, revoked keys after rotation, new key works, secrets never listed', async () => {
    const sb = createSandbox({ now: NOW });
    const oldKey = sb.apiKey;
    expect((await raw(sb, 'GET', '/v1/users', undefined, { apiKey: null, headers: { authorization: `Bearer${oldKey}` } })).body.code).toBe('authentication_required');
    const client = new PixUsdt({ apiKey: oldKey, fetch: sb.fetch, maxRetries: 0 });
    const listed = await client.apiKeys.list();
    expect(JSON.stringify(listed.data)).not.toContain(oldKey);
    const rotated = await client.apiKeys.rotate(listed.data[0]?.id as string);
    expect(rotated.api_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(rotated.name).toBe(listed.data[0]?.name);
    expect(rotated.capabilities).toEqual(listed.data[0]?.capabilities);
    expect((await raw(sb, 'GET', '/v1/users', undefined, { apiKey: oldKey })).body.code).toBe('authentication_failed');
    expect((await raw(sb, 'GET', '/v1/users', undefined, { apiKey: rotated.api_key })).status).toBe(200);
    expect(sb.apiKey).toBe(rotated.api_key);
    expect(JSON.stringify(sb.events())).not.toContain('sk_test_');
  });

  it("another tenant's resources are not found; production answers like production", async () => {
    const sb = createSandbox({ now: NOW });
    const userId = await approvedUser(sb, 1);
    const other = sb.createTenant();
    expect((await raw(sb, 'GET', `/v1/users/${userId}`, undefined, { apiKey: other.apiKey })).body.code).toBe('user_not_found');

    const prod = createSandbox({ environment: 'production', now: NOW });
    expect(prod.apiKey).toMatch(/^sk_live_/);
    expect((await raw(prod, 'GET', '/v1/test_helpers/clock')).body.code).toBe('not_found');
    expect((await raw(prod, 'POST', '/v1/test_helpers/tenants', {})).body.code).toBe('not_found');
    expect((await raw(prod, 'GET', '/v1/users', undefined, { apiKey: sb.apiKey })).body.code).toBe('api_key_env_mismatch');
    expect((await raw(prod, 'GET', '/v1/users')).status).toBe(200);
  });
});

describe('Pix key resolution', () => {
  it.each([
    ['cpf', '529.982.247-25', true],
    ['cpf', '52998224724', false],
    ['cnpj', '11.222.333/0001-81', true],
    ['cnpj', '12.ABC.345/01DE-35', true],
    ['cnpj', '12ABC34501DE36', false],
    ['email', SANDBOX_PIX_EMAIL, true],
    ['email', SANDBOX_PIX_NOT_FOUND_EMAIL, false],
    ['phone', SANDBOX_PIX_PHONE, true],
    ['phone', SANDBOX_PIX_NOT_FOUND_PHONE, false],
    ['evp', SANDBOX_PIX_EVP, true],
    ['evp', SANDBOX_PIX_NOT_FOUND_EVP, false],
    ['email', 'someone@example.com', false],
  ])('%s %s resolves: %s', async (type, key, resolves) => {
    const sb = createSandbox({ now: NOW });
    const userId = await approvedUser(sb, 1);
    const answer = await raw(sb, 'POST', '/v1/quotes', { ...offrampBody(userId), pix_key: key, pix_key_type: type });
    if (resolves) {
      expect(answer.status).toBe(201);
      expect(answer.body.pix_holder_name).toMatch(/Sandbox/);
      expect(answer.body.pix_holder_document_masked).toMatch(/\*\*/);
      expect(answer.body.pix_key_verified_at).toBe('2026-05-01T00:00:00.000Z');
    } else {
      expect(answer.status).toBe(422);
      expect(answer.body.code).toBe('pix_key_not_found');
    }
  });
});

describe('no input answers 500', () => {
  it('garbage bodies, paths, queries and headers all answer a 4xx envelope', async () => {
    const sb = createSandbox({ now: NOW });
    const userId = await approvedUser(sb, 1);
    const bodies = ['[]', 'null', '"x"', '1', '{"a":'.repeat(50), JSON.stringify({ user_id: userId, source_currency: 'USDT' }), '{"__proto__":{"x":1}}', '\u0000'];
    const paths = ['/v1/users', '/v1/quotes', `/v1/quotes/${userId}/accept`, `/v1/users/${userId}`, '/v1/users/%E0%A4%A', '/v1/../etc/passwd', '/v1/test_helpers/clock/advance'];
    for (const path of paths) {
      for (const rawBody of bodies) {
        for (const method of ['POST', 'PATCH', 'DELETE', 'GET']) {
          const answer = await raw(sb, method, path, undefined, method === 'GET' ? {} : { rawBody });
          expect(answer.status, `${method} ${path} ${rawBody}`).toBeLessThan(500);
          if (answer.status >= 400) expect(answer.body.request_id).toBe(answer.headers.get('x-request-id'));
        }
      }
    }
    for (const q of ['limit=-1', 'limit=1e3', 'cursor=%00', 'kyc_status=x', 'limit=99999999999999999999']) {
      expect((await raw(sb, 'GET', `/v1/users?${q}`)).status).toBe(400);
    }
  });
});
