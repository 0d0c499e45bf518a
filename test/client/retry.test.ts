/**
 * The reference's retry rules, with an injected sleep and clock (no real waiting).
 */
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { RETRY_POLICY, type RetryEvent } from '../../src/index.js';
import { decideRetry, exponentialDelay, retryAfterMs } from '../../src/client/retry.js';
import { ID, apiError, fixtures as f, json, makeClient, networkError, reply, replyAlways, requests, useMockServer } from './helpers.js';

useMockServer();

const keys = () => requests().map((r) => r.headers.get('idempotency-key'));

describe('500 internal_error', () => {
  it('waits 250, 500, 1000, 2000, 4000 ms, then gives up with the same key on every attempt', async () => {
    const { client, time } = makeClient({ maxRetries: 10 });
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.quotes.accept(ID)).rejects.toMatchObject({ name: 'InternalServerError', status: 500, code: 'internal_error' });
    expect(time.state.waits).toEqual([250, 500, 1_000, 2_000, 4_000]);
    expect(requests()).toHaveLength(6);
    const k = keys();
    expect(k[0]).toBeTruthy();
    expect(new Set(k)).toEqual(new Set([k[0]]));
  });

  it('succeeds on a later attempt', async () => {
    const { client, time } = makeClient();
    reply(apiError(500, 'internal_error'), apiError(500, 'internal_error'), json(f.conversion, 201));
    await expect(client.quotes.accept(ID)).resolves.toMatchObject({ id: ID });
    expect(time.state.waits).toEqual([250, 500]);
  });

  it('honours maxRetries per call', async () => {
    const { client, time } = makeClient();
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.users.retrieve(ID, { maxRetries: 2 })).rejects.toMatchObject({ status: 500 });
    expect(time.state.waits).toEqual([250, 500]);
    expect(requests()).toHaveLength(3);
  });

  it('maxRetries 0 makes one attempt', async () => {
    const { client, time } = makeClient({ maxRetries: 0 });
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ status: 500 });
    expect(time.state.waits).toEqual([]);
  });
});

describe('never retried', () => {
  it.each([
    [400, 'validation_error'],
    [401, 'authentication_failed'],
    [403, 'missing_capability'],
    [404, 'user_not_found'],
    [409, 'idempotency_key_in_progress'],
    [422, 'pix_key_not_found'],
    [409, 'some_future_code'],
  ])('%i %s', async (status, code) => {
    const { client, time } = makeClient();
    replyAlways(apiError(status, code));
    await expect(client.users.create({ external_id: 'e', name: 'n', document_type: 'cpf', document_number: '1' })).rejects.toMatchObject({ status, code });
    expect(requests()).toHaveLength(1);
    expect(time.state.waits).toEqual([]);
  });
});

describe('429 and 502/503/504', () => {
  it('honours Retry-After in seconds', async () => {
    const { client, time } = makeClient();
    reply(apiError(429, 'rate_limit_exceeded', { headers: { 'retry-after': '7' } }), json(f.quote, 201));
    await client.quotes.retrieve(ID);
    expect(time.state.waits).toEqual([7_000]);
  });

  it('honours Retry-After as an HTTP date, against the injected clock', async () => {
    const { client, time } = makeClient();
    const at = new Date(time.state.now + 12_000).toUTCString();
    reply(apiError(503, 'price_feed_unavailable', { headers: { 'retry-after': at } }), json(f.quote));
    await client.quotes.retrieve(ID);
    expect(time.state.waits).toEqual([12_000]);
  });

  it('honours details.retry_after_seconds without the header', async () => {
    const { client, time } = makeClient();
    reply(apiError(429, 'rate_limit_exceeded', { details: { retry_after_seconds: 3 } }), json(f.quote));
    await client.quotes.retrieve(ID);
    expect(time.state.waits).toEqual([3_000]);
  });

  it('prefers the header over details', async () => {
    const { client, time } = makeClient();
    reply(apiError(429, 'rate_limit_exceeded', { details: { retry_after_seconds: 3 }, headers: { 'retry-after': '5' } }), json(f.quote));
    await client.quotes.retrieve(ID);
    expect(time.state.waits).toEqual([5_000]);
  });

  it.each([502, 503, 504])('%i without Retry-After backs off 1 s, 2 s, 4 s, ... capped at 30 s', async (status) => {
    const { client, time } = makeClient({ maxRetries: 7, deadlineMs: 10_000_000 });
    replyAlways(apiError(status, status === 502 ? 'upstream_unavailable' : 'wallet_provider_unavailable'));
    await expect(client.users.wallet(ID)).rejects.toMatchObject({ status });
    expect(time.state.waits).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(requests()).toHaveLength(8);
  });

  it('retries a 429 on a mutation with the same key, then throws RateLimitError', async () => {
    const { client } = makeClient({ maxRetries: 2 });
    replyAlways(apiError(429, 'rate_limit_exceeded', { headers: { 'retry-after': '1' } }));
    await expect(client.quotes.create({ user_id: ID, source_currency: 'BRL', target_currency: 'USDT', source_amount: '1', destination_wallet_address: '0x' + 'a'.repeat(40), destination_wallet_network: 'polygon' })).rejects.toMatchObject({ name: 'RateLimitError' });
    expect(new Set(keys()).size).toBe(1);
    expect(requests()).toHaveLength(3);
  });

  it('judges an answer without an error envelope by its status', async () => {
    const { client, time } = makeClient();
    reply(() => new HttpResponse('<html>bad gateway</html>', { status: 502 }), json(f.conversion));
    await client.conversions.cancel(ID);
    expect(time.state.waits).toEqual([1_000]);
  });
});

describe('unknown error code', () => {
  it('is not retried on a destructive operation', async () => {
    const { client, time } = makeClient();
    replyAlways(apiError(503, 'brand_new_failure'));
    await expect(client.conversions.liquidate(ID)).rejects.toMatchObject({ status: 503, code: 'brand_new_failure', name: 'InternalServerError' });
    expect(requests()).toHaveLength(1);
    expect(time.state.waits).toEqual([]);
  });

  it.each([
    ['users.delete', (c: ReturnType<typeof makeClient>['client']) => c.users.delete(ID)],
    ['webhookEndpoints.delete', (c: ReturnType<typeof makeClient>['client']) => c.webhookEndpoints.delete(ID)],
    ['conversions.cancel', (c: ReturnType<typeof makeClient>['client']) => c.conversions.cancel(ID)],
    ['apiKeys.rotate', (c: ReturnType<typeof makeClient>['client']) => c.apiKeys.rotate(ID)],
    ['webhookEndpoints.rotateSecret', (c: ReturnType<typeof makeClient>['client']) => c.webhookEndpoints.rotateSecret(ID)],
  ])('%s is destructive', async (_name, call) => {
    const { client } = makeClient();
    replyAlways(apiError(500, 'mystery'));
    await expect(call(client)).rejects.toMatchObject({ code: 'mystery' });
    expect(requests()).toHaveLength(1);
  });

  it('is retried like internal_error on a non-destructive operation', async () => {
    const { client, time } = makeClient();
    replyAlways(apiError(503, 'brand_new_failure', { headers: { 'retry-after': '9' } }));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ code: 'brand_new_failure' });
    // The 500 schedule, not Retry-After: an unknown code is internal_error.
    expect(time.state.waits).toEqual([250, 500, 1_000, 2_000, 4_000]);
  });

  it('a known 500 internal_error on a destructive operation is still retried', async () => {
    const { client, time } = makeClient();
    reply(apiError(500, 'internal_error'), json(f.conversion));
    await client.conversions.cancel(ID);
    expect(time.state.waits).toEqual([250]);
  });
});

describe('network errors and timeouts', () => {
  it('retries a network error like a 5xx, with the same key', async () => {
    const { client, time } = makeClient();
    reply(networkError, networkError, json(f.conversion));
    await expect(client.conversions.cancel(ID)).resolves.toMatchObject({ id: ID });
    expect(time.state.waits).toEqual([1_000, 2_000]);
    expect(new Set(keys()).size).toBe(1);
  });

  it('a mutation that never got an answer is indeterminate and carries its key', async () => {
    const { client } = makeClient({ maxRetries: 1 });
    replyAlways(networkError);
    const error = await client.transactions.create({ quote_id: ID }, { idempotencyKey: 'idem-42' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConnectionError', indeterminate: true, idempotencyKey: 'idem-42', code: 'connection_error' });
    expect((error as Error).message).toMatch(/may have been applied.*same idempotencyKey/);
  });

  it('a GET that never got an answer is not indeterminate', async () => {
    const { client } = makeClient({ maxRetries: 0 });
    replyAlways(networkError);
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ name: 'ConnectionError', indeterminate: false, idempotencyKey: undefined });
  });

  it('a 5xx after an unanswered attempt of a mutation stays indeterminate', async () => {
    const { client } = makeClient({ maxRetries: 1 });
    reply(networkError, apiError(500, 'internal_error'));
    await expect(client.conversions.cancel(ID)).rejects.toMatchObject({ name: 'InternalServerError', indeterminate: true });
  });

  it('times out an attempt and retries it', async () => {
    const { client, time } = makeClient({ timeoutMs: 20 });
    const never = () => new Promise<Response>(() => undefined);
    reply(never, json(f.user));
    await expect(client.users.retrieve(ID)).resolves.toMatchObject({ id: ID });
    expect(time.state.waits).toEqual([1_000]);
    expect(requests()).toHaveLength(2);
  });

  it('a mutation that timed out on every attempt throws an indeterminate TimeoutError', async () => {
    const { client } = makeClient({ timeoutMs: 10, maxRetries: 1 });
    replyAlways(() => new Promise<Response>(() => undefined));
    await expect(client.conversions.cancel(ID, { idempotencyKey: 'k-t' })).rejects.toMatchObject({
      name: 'TimeoutError',
      indeterminate: true,
      idempotencyKey: 'k-t',
    });
  });
});

describe('abort and deadline', () => {
  it('abort during a backoff wait rejects with AbortError and makes no further attempt', async () => {
    const controller = new AbortController();
    const waits: number[] = [];
    const { client } = makeClient({
      // A sleep that never ends by itself: only the abort can end it.
      sleep: (ms, signal) =>
        new Promise((_resolve, reject) => {
          waits.push(ms);
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort();
        }),
    });
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.conversions.cancel(ID, { signal: controller.signal, idempotencyKey: 'k-a' })).rejects.toMatchObject({
      name: 'AbortError',
      code: 'aborted',
      idempotencyKey: 'k-a',
      indeterminate: false,
    });
    expect(waits).toEqual([250]);
    expect(requests()).toHaveLength(1);
  });

  it('aborts with the real sleep promptly', async () => {
    const controller = new AbortController();
    const { client } = makeClient({ sleep: undefined });
    replyAlways(apiError(503, 'wallet_provider_unavailable', { headers: { 'retry-after': '3600' } }));
    const call = client.users.wallet(ID, { signal: controller.signal, deadlineMs: 10_000_000 });
    client.once('retry', () => controller.abort());
    await expect(call).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests()).toHaveLength(1);
  });

  it('an aborted signal sends nothing', async () => {
    const { client } = makeClient();
    await expect(client.users.retrieve(ID, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(requests()).toHaveLength(0);
  });

  it('abort during an attempt of a mutation is indeterminate', async () => {
    const controller = new AbortController();
    const { client } = makeClient();
    replyAlways(() => {
      controller.abort();
      return new Promise<Response>(() => undefined);
    });
    await expect(client.conversions.cancel(ID, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError', indeterminate: true });
  });

  it('the overall deadline stops the retries: a wait past it is not started', async () => {
    const { client, time } = makeClient({ deadlineMs: 1_000 });
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ status: 500 });
    // 250 + 500 = 750 ms; the next wait (1 s) would end past the deadline.
    expect(time.state.waits).toEqual([250, 500]);
    expect(requests()).toHaveLength(3);
  });

  it('a Retry-After beyond the deadline is not waited for', async () => {
    const { client, time } = makeClient({ deadlineMs: 60_000 });
    replyAlways(apiError(429, 'rate_limit_exceeded', { headers: { 'retry-after': '120' } }));
    await expect(client.users.retrieve(ID)).rejects.toMatchObject({ name: 'RateLimitError' });
    expect(time.state.waits).toEqual([]);
  });

  it('a backoff wait that overshoots the deadline ends the call with TimeoutError, before another attempt', async () => {
    let now = 0;
    const { client } = makeClient({
      deadlineMs: 1_000,
      now: () => now,
      // The wait takes longer than asked (a busy event loop).
      sleep: (ms) => {
        now += ms + 1_000;
        return Promise.resolve();
      },
    });
    replyAlways(apiError(500, 'internal_error'));
    await expect(client.conversions.cancel(ID, { idempotencyKey: 'k-d' })).rejects.toMatchObject({ name: 'TimeoutError', code: 'timeout', idempotencyKey: 'k-d' });
    expect(requests()).toHaveLength(1);
  });
});

describe('events', () => {
  it('emits request, response and retry with attempt, delay, reason and key; never the API key', async () => {
    const { client } = makeClient();
    const log: Array<[string, unknown]> = [];
    client.on('request', (e) => log.push(['request', e]));
    client.on('response', (e) => log.push(['response', e]));
    client.on('retry', (e) => log.push(['retry', e]));
    reply(apiError(500, 'internal_error', { request_id: 'req_a' }), json(f.conversion));
    await client.conversions.cancel(ID, { idempotencyKey: 'k-ev' });
    expect(log.map(([n]) => n)).toEqual(['request', 'response', 'retry', 'request', 'response']);
    const retry = log[2]![1] as RetryEvent;
    expect(retry).toMatchObject({
      method: 'POST',
      path: `/v1/conversions/${ID}/cancel`,
      attempt: 1,
      delayMs: 250,
      status: 500,
      code: 'internal_error',
      requestId: 'req_a',
      idempotencyKey: 'k-ev',
    });
    expect(retry.reason).toContain('500 internal_error');
    expect(log[4]![1]).toMatchObject({ attempt: 2, status: 200, requestId: 'req_header' });
    expect(JSON.stringify(log)).not.toContain('SECRET');
  });

  it('events carry the path without the query', async () => {
    const { client } = makeClient();
    const paths: string[] = [];
    client.on('request', (e) => paths.push(e.path));
    reply(json({ data: [], next_cursor: null }));
    await client.users.list({ cpf: '12345678909' });
    expect(paths).toEqual(['/v1/users']);
  });
});

describe('the policy table', () => {
  it('reads like the reference', () => {
    expect(RETRY_POLICY.internalError.waitsMs).toEqual([250, 500, 1_000, 2_000, 4_000]);
    expect(RETRY_POLICY.neverRetryStatuses).toEqual([400, 401, 403, 404, 409, 422]);
    expect(RETRY_POLICY.transient.statuses).toEqual([429, 502, 503, 504]);
    expect([0, 1, 4, 5, 9].map(exponentialDelay)).toEqual([1_000, 2_000, 16_000, 30_000, 30_000]);
  });

  it('decides other statuses: 5xx as internal_error, other 4xx never', () => {
    const ctx = { retriesDone: 0, maxRetries: 5, destructive: false };
    expect(decideRetry({ kind: 'status', status: 501, code: undefined, retryAfterMs: undefined }, ctx)).toMatchObject({ retry: true, delayMs: 250 });
    expect(decideRetry({ kind: 'status', status: 410, code: undefined, retryAfterMs: undefined }, ctx)).toMatchObject({ retry: false });
  });

  it('parses Retry-After forms', () => {
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs('2', undefined, now)).toBe(2_000);
    expect(retryAfterMs('Wed, 01 Jan 2025 00:00:05 GMT', undefined, now)).toBe(5_000);
    expect(retryAfterMs('Tue, 31 Dec 2024 00:00:00 GMT', undefined, now)).toBe(0);
    expect(retryAfterMs(null, 4, now)).toBe(4_000);
    expect(retryAfterMs('garbage', undefined, now)).toBeUndefined();
  });
});
