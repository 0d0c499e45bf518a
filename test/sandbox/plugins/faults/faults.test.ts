/**
 * Fault injection from code: each fault kind, n-th call targeting, tenants, path patterns.
 */
import { describe, expect, it } from 'vitest';
import { ConnectionError, PixUsdt, isConnectionError } from '../../../../src/index.js';
import { createSandbox } from '../../../../src/sandbox/index.js';
import { userBody } from '../../../support/fixtures.js';
import { raw } from '../../raw.js';
import { settle } from './helpers.js';

const sandboxOf = () => createSandbox({ seed: 'faults', now: '2026-03-02T12:00:00Z' });

async function userCount(sandbox: ReturnType<typeof sandboxOf>, apiKey?: string): Promise<number> {
  const o = apiKey === undefined ? {} : { apiKey };
  return (await raw(sandbox, 'GET', '/v1/users?limit=100', undefined, o)).body.data.length as number;
}

describe('error answers', () => {
  it('answers 500 internal_error in the reference envelope with the request id, without running the operation', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'error', code: 'internal_error' } });
    const first = await raw(sandbox, 'POST', '/v1/users', userBody(1));
    expect(first.status).toBe(500);
    expect(first.body).toMatchObject({ code: 'internal_error', request_id: first.headers.get('x-request-id') });
    expect(typeof first.body.message).toBe('string');
    expect(await userCount(sandbox)).toBe(0);
    const second = await raw(sandbox, 'POST', '/v1/users', userBody(1));
    expect(second.status).toBe(201);
  });

  it('answers 429 with Retry-After and details.retry_after_seconds', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'GET /v1/users', fault: { type: 'error', code: 'rate_limit_exceeded', retryAfterSeconds: 7 } });
    const answer = await raw(sandbox, 'GET', '/v1/users');
    expect(answer.status).toBe(429);
    expect(answer.headers.get('retry-after')).toBe('7');
    expect(answer.body).toMatchObject({ code: 'rate_limit_exceeded', details: { retry_after_seconds: 7 } });
  });

  it('answers 502 upstream_unavailable with details.upstream, and the 503 codes', async () => {
    const sandbox = sandboxOf();
    const id = sandbox.faults.add({ match: 'POST /v1/quotes', fault: { type: 'error', code: 'upstream_unavailable', upstream: 'exchange' } });
    const a = await raw(sandbox, 'POST', '/v1/quotes', {});
    expect(a.status).toBe(502);
    expect(a.body).toMatchObject({ code: 'upstream_unavailable', details: { upstream: 'exchange' } });
    sandbox.faults.remove(id);
    for (const code of ['wallet_provider_unavailable', 'price_feed_unavailable'] as const) {
      const plan = sandbox.faults.add({ match: 'GET /v1/users/:id/wallet', fault: { type: 'error', code } });
      const b = await raw(sandbox, 'GET', '/v1/users/00000000-0000-4000-8000-000000000000/wallet');
      expect(b.status).toBe(503);
      expect(b.body.code).toBe(code);
      sandbox.faults.remove(plan);
    }
    sandbox.faults.add({ match: 'GET /v1/users', fault: { type: 'error', code: 'internal_error', status: 503 } });
    expect((await raw(sandbox, 'GET', '/v1/users')).status).toBe(503);
  });
});

describe('transport faults', () => {
  it('network: the fetch rejects with a TypeError and nothing happens', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'network' } });
    const outcome = await settle(raw(sandbox, 'POST', '/v1/users', userBody(1)));
    expect(outcome.ok).toBe(false);
    expect((outcome as { error: unknown }).error).toBeInstanceOf(TypeError);
    expect(await userCount(sandbox)).toBe(0);
  });

  it('commit_then_lose: the effect happens, the fetch rejects, and a retry with the same key replays the answer', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'commit_then_lose' } });
    const lost = await settle(raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'k-1' }));
    expect(lost.ok).toBe(false);
    expect((lost as { error: unknown }).error).toBeInstanceOf(TypeError);
    expect(await userCount(sandbox)).toBe(1);
    const retry = await raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'k-1' });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await userCount(sandbox)).toBe(1);
  });

  it('commit_then_lose through the client: the retry with the same key returns the first answer', async () => {
    const sandbox = sandboxOf();
    const waits: number[] = [];
    const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, sleep: async (ms) => void waits.push(ms) });
    sandbox.faults.add({ match: 'POST /v1/users', times: 2, fault: { type: 'commit_then_lose' } });
    const user = await client.users.create(userBody(1));
    expect(waits).toHaveLength(2);
    expect(await userCount(sandbox)).toBe(1);
    expect((await client.users.retrieve(user.id)).external_id).toBe('ext-1');
    // Without retries the caller sees the typed connection error.
    const noRetry = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
    sandbox.faults.add({ match: 'POST /v1/users', fault: { type: 'commit_then_lose' } });
    const error = await noRetry.users.create(userBody(2)).catch((e: unknown) => e);
    expect(isConnectionError(error)).toBe(true);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(await userCount(sandbox)).toBe(2);
  });

  it('latency: the idempotency record stays in progress, so a concurrent retry gets idempotency_key_in_progress', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'POST /v1/users', nth: 1, fault: { type: 'latency', ms: 200 } });
    const slow = raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'same' });
    // The plan counts its hit in the same synchronous run that opens the idempotency record.
    while (sandbox.faults.list()[0]?.hits !== 1) await new Promise((resolve) => setTimeout(resolve, 1));
    const concurrent = await raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'same' });
    expect(concurrent.status).toBe(409);
    expect(concurrent.body.code).toBe('idempotency_key_in_progress');
    expect((await slow).status).toBe(201);
    const replay = await raw(sandbox, 'POST', '/v1/users', userBody(1), { idempotencyKey: 'same' });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('targeting', () => {
  async function pattern(plan: Parameters<ReturnType<typeof sandboxOf>['faults']['add']>[0], calls = 8): Promise<number[]> {
    const sandbox = sandboxOf();
    sandbox.faults.add(plan);
    const out: number[] = [];
    for (let i = 1; i <= calls; i++) if ((await raw(sandbox, 'GET', '/v1/users')).status === 500) out.push(i);
    return out;
  }
  const fault = { type: 'error', code: 'internal_error' } as const;

  it('nth, times, every, and their combinations', async () => {
    expect(await pattern({ match: 'GET /v1/users', nth: 2, fault })).toEqual([2]);
    expect(await pattern({ match: 'GET /v1/users', times: 3, fault })).toEqual([1, 2, 3]);
    expect(await pattern({ match: 'GET /v1/users', every: 2, fault })).toEqual([2, 4, 6, 8]);
    expect(await pattern({ match: 'GET /v1/users', nth: 3, times: 2, fault })).toEqual([3, 4]);
    expect(await pattern({ match: 'GET /v1/users', fault })).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('probability with a seed is deterministic', async () => {
    const a = await pattern({ match: 'GET /v1/users', probability: 0.5, seed: 42, fault }, 40);
    const b = await pattern({ match: 'GET /v1/users', probability: 0.5, seed: 42, fault }, 40);
    const c = await pattern({ match: 'GET /v1/users', probability: 0.5, seed: 43, fault }, 40);
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.length).toBeGreaterThan(5);
    expect(a.length).toBeLessThan(35);
  });

  it('path patterns: :param, *, ** and several methods', async () => {
    const sandbox = sandboxOf();
    sandbox.faults.add({ match: 'POST|PATCH /v1/users/:id/**', fault });
    const id = '00000000-0000-4000-8000-000000000000';
    expect((await raw(sandbox, 'POST', '/v1/users', userBody(1))).status).toBe(201);
    expect((await raw(sandbox, 'GET', `/v1/users/${id}/wallet`)).status).toBe(404);
    expect((await raw(sandbox, 'POST', `/v1/users/${id}/limit-upgrade-requests`, {})).status).toBe(500);
    expect((await raw(sandbox, 'PATCH', `/v1/users/${id}`, { name: 'x' })).status).toBe(500);
    sandbox.faults.clear();
    sandbox.faults.add({ match: '/v1/*', fault });
    expect((await raw(sandbox, 'GET', '/v1/users')).status).toBe(500);
    expect((await raw(sandbox, 'GET', `/v1/users/${id}`)).status).toBe(404);
  });

  it('tenants: a plan for one tenant leaves the others alone', async () => {
    const sandbox = sandboxOf();
    const other = sandbox.createTenant();
    sandbox.faults.add({ match: 'POST /v1/users', tenantId: other.tenantId, fault });
    expect((await raw(sandbox, 'POST', '/v1/users', userBody(1))).status).toBe(201);
    expect((await raw(sandbox, 'POST', '/v1/users', userBody(1), { apiKey: other.apiKey })).status).toBe(500);
    expect(sandbox.faults.list(other.tenantId)).toHaveLength(1);
    expect(sandbox.faults.list(sandbox.tenantId)).toHaveLength(0);
  });

  it('list, remove and clear from code, with counters', async () => {
    const sandbox = sandboxOf();
    const a = sandbox.faults.add({ match: 'GET /v1/users', nth: 2, fault });
    sandbox.faults.add({ match: 'GET /v1/quotes', fault });
    for (let i = 0; i < 3; i++) await raw(sandbox, 'GET', '/v1/users');
    expect(sandbox.faults.list()).toHaveLength(2);
    expect(sandbox.faults.list().find((p) => p.id === a)).toMatchObject({ calls: 3, hits: 1, match: 'GET /v1/users', nth: 2 });
    expect(sandbox.faults.remove(a)).toBe(true);
    expect(sandbox.faults.remove(a)).toBe(false);
    sandbox.faults.clear();
    expect(sandbox.faults.list()).toEqual([]);
    expect(() => sandbox.faults.add({ match: 'FETCH /v1/users', fault })).toThrow(RangeError);
    expect(() => sandbox.faults.add({ match: 'GET v1/users', fault })).toThrow(RangeError);
    expect(() => sandbox.faults.add({ match: 'GET /v1/users', nth: 0, fault })).toThrow(RangeError);
  });
});
