/**
 * Fault plans over HTTP: /v1/test_helpers/faults, for the caller's tenant only.
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../../src/sandbox/index.js';
import { userBody } from '../../../support/fixtures.js';
import { raw } from '../../raw.js';
import { settle } from './helpers.js';

const sandboxOf = () => createSandbox({ seed: 'faults-http', now: '2026-03-02T12:00:00Z' });

describe('/v1/test_helpers/faults', () => {
  it('creates a plan (201) that applies to the caller, lists it with counters, deletes it', async () => {
    const sandbox = sandboxOf();
    const created = await raw(sandbox, 'POST', '/v1/test_helpers/faults', {
      match: 'POST /v1/users',
      nth: 2,
      fault: { type: 'error', code: 'upstream_unavailable', upstream: 'pix_bank' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      match: 'POST /v1/users',
      nth: 2,
      times: null,
      fault: { type: 'error', code: 'upstream_unavailable', status: 502, upstream: 'pix_bank' },
      calls: 0,
      hits: 0,
    });
    expect((await raw(sandbox, 'POST', '/v1/users', userBody(1))).status).toBe(201);
    const second = await raw(sandbox, 'POST', '/v1/users', userBody(2));
    expect(second.status).toBe(502);
    expect(second.body).toMatchObject({ code: 'upstream_unavailable', details: { upstream: 'pix_bank' } });
    const listed = await raw(sandbox, 'GET', '/v1/test_helpers/faults');
    expect(listed.body).toMatchObject({ data: [{ id: created.body.id, calls: 2, hits: 1 }], next_cursor: null });
    const deleted = await raw(sandbox, 'DELETE', `/v1/test_helpers/faults/${created.body.id}`);
    expect(deleted.body).toEqual({ id: created.body.id, deleted: true });
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/faults')).body.data).toEqual([]);
    expect((await raw(sandbox, 'DELETE', `/v1/test_helpers/faults/${created.body.id}`)).status).toBe(404);
  });

  it('injects network and commit-then-lose faults from HTTP, and clears every plan of the tenant', async () => {
    const sandbox = sandboxOf();
    await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'POST /v1/users', nth: 1, fault: { type: 'commit_then_lose' } });
    await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/users', nth: 1, fault: { type: 'network' } });
    const lost = await settle(raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'http-1' }));
    expect(lost.ok).toBe(false);
    expect((await settle(raw(sandbox, 'GET', '/v1/users'))).ok).toBe(false);
    const replay = await raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'http-1' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await raw(sandbox, 'GET', '/v1/users')).body.data).toHaveLength(1);
    const cleared = await raw(sandbox, 'DELETE', '/v1/test_helpers/faults');
    expect(cleared.body).toEqual({ deleted: 2 });
    expect(sandbox.faults.list()).toEqual([]);
  });

  it("scopes plans to the caller's tenant", async () => {
    const sandbox = sandboxOf();
    const other = sandbox.createTenant();
    await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: '* /v1/**', fault: { type: 'error', code: 'internal_error' } }, { apiKey: other.apiKey });
    expect((await raw(sandbox, 'GET', '/v1/users')).status).toBe(200);
    expect((await raw(sandbox, 'GET', '/v1/users', undefined, { apiKey: other.apiKey })).status).toBe(500);
    // The fault helpers themselves are never faulted, so the plan can be removed.
    expect((await raw(sandbox, 'GET', '/v1/test_helpers/faults')).body.data).toEqual([]);
    const mine = await raw(sandbox, 'GET', '/v1/test_helpers/faults', undefined, { apiKey: other.apiKey });
    expect(mine.body.data).toHaveLength(1);
    expect((await raw(sandbox, 'DELETE', `/v1/test_helpers/faults/${mine.body.data[0].id}`)).status).toBe(404);
    expect((await raw(sandbox, 'DELETE', '/v1/test_helpers/faults', undefined, { apiKey: other.apiKey })).body).toEqual({ deleted: 1 });
    expect((await raw(sandbox, 'GET', '/v1/users', undefined, { apiKey: other.apiKey })).status).toBe(200);
  });

  it('validates plans, needs sandbox:control, and is absent in production', async () => {
    const sandbox = sandboxOf();
    const bad = await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'GET users', fault: { type: 'network' } });
    expect(bad).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const badCode = await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/users', fault: { type: 'error', code: 'nope' } });
    expect(badCode).toMatchObject({ status: 400, body: { code: 'validation_error' } });
    const limited = sandbox.createTenant({ capabilities: ['users:read'] });
    const denied = await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/users', fault: { type: 'network' } }, { apiKey: limited.apiKey });
    expect(denied).toMatchObject({ status: 403, body: { code: 'missing_capability' } });
    const production = createSandbox({ environment: 'production', seed: 'p' });
    const absent = await raw(production, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/users', fault: { type: 'network' } });
    expect(absent).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });
});
