/**
 * Error classes per status, the code guard, request ids, and secret hygiene.
 */
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  PixUsdt,
  PixUsdtApiError,
  PixUsdtError,
  isAbortError,
  isApiError,
  isApiErrorCode,
  isConflictError,
  isInternalServerError,
  isPixUsdtError,
  isRateLimitError,
  isUpstreamError,
} from '../../src/index.js';
import * as all from '../../src/index.js';
import { API_KEY, ID, apiError, json, makeClient, networkError, reply, replyAlways, useMockServer } from './helpers.js';

useMockServer();

const fail = (client: PixUsdt) => client.users.retrieve(ID, { maxRetries: 0 }).catch((e: unknown) => e);

describe('one class per status family', () => {
  it.each([
    [400, 'validation_error', 'ValidationError'],
    [401, 'authentication_failed', 'AuthenticationError'],
    [403, 'missing_capability', 'PermissionError'],
    [404, 'user_not_found', 'NotFoundError'],
    [409, 'quote_expired', 'ConflictError'],
    [422, 'pix_key_not_found', 'UnprocessableEntityError'],
    [429, 'rate_limit_exceeded', 'RateLimitError'],
    [500, 'internal_error', 'InternalServerError'],
    [503, 'price_feed_unavailable', 'InternalServerError'],
    [502, 'upstream_unavailable', 'UpstreamError'],
    [418, 'teapot', 'PixUsdtApiError'],
  ])('%i %s -> %s', async (status, code, name) => {
    const { client } = makeClient();
    reply(apiError(status, code, { details: { upstream: 'pix_bank' } }));
    const error = await fail(client);
    expect(error).toBeInstanceOf(PixUsdtApiError);
    expect(error).toBeInstanceOf(PixUsdtError);
    expect((all as unknown as Record<string, unknown>)[name]).toBeDefined();
    expect(error).toBeInstanceOf((all as unknown as Record<string, new () => unknown>)[name]);
    expect(error).toMatchObject({ name, status, code, requestId: `req_${status}`, details: { upstream: 'pix_bank' } });
    expect((error as Error).message).toContain(code);
    expect(isApiError(error)).toBe(true);
  });

  it('UpstreamError names the upstream and is a server error', async () => {
    const { client } = makeClient();
    reply(apiError(502, 'upstream_unavailable', { details: { upstream: 'exchange' } }));
    const error = await fail(client);
    expect(isUpstreamError(error) && error.upstream).toBe('exchange');
    expect(isInternalServerError(error)).toBe(true);
  });

  it('takes the request id from the x-request-id header when the body has none', async () => {
    const { client } = makeClient();
    reply(() => new HttpResponse('oops', { status: 404, headers: { 'x-request-id': 'req_from_header' } }));
    expect(await fail(client)).toMatchObject({ requestId: 'req_from_header', code: 'unknown_error', status: 404 });
  });

  it('prefers the body request_id', async () => {
    const { client } = makeClient();
    reply(json({ code: 'user_not_found', message: 'no', request_id: 'req_body' }, 404, { 'x-request-id': 'req_hdr' }));
    expect(await fail(client)).toMatchObject({ requestId: 'req_body' });
  });
});

describe('guards', () => {
  it('isApiErrorCode narrows on a code or a list of codes', async () => {
    const { client } = makeClient();
    reply(apiError(409, 'quote_expired'));
    const error = await fail(client);
    expect(isApiErrorCode(error, 'quote_expired')).toBe(true);
    expect(isApiErrorCode(error, 'quote_not_found')).toBe(false);
    expect(isApiErrorCode(error, ['duplicate_cpf', 'quote_expired'])).toBe(true);
    expect(isApiErrorCode(new Error('quote_expired'), 'quote_expired')).toBe(false);
    expect(isConflictError(error)).toBe(true);
    expect(isRateLimitError(error)).toBe(false);
    if (isApiErrorCode(error, 'quote_expired')) {
      const code: 'quote_expired' = error.code;
      expect(code).toBe('quote_expired');
    }
  });

  it('the catalog lists every code of the reference', () => {
    for (const code of ['validation_error', 'quote_already_consumed', 'upstream_unavailable', 'invalid_cpf', 'limit_upgrade_not_available']) {
      expect(ERROR_CODES).toContain(code);
    }
  });

  it('guards work across realms (brand and name, not instanceof)', () => {
    const foreign = Object.assign(Object.create({ [Symbol.for('pix-usdt.error')]: true }) as object, { name: 'RateLimitError', code: 'rate_limit_exceeded' });
    expect(foreign instanceof PixUsdtError).toBe(false);
    expect(isPixUsdtError(foreign)).toBe(true);
    expect(isRateLimitError(foreign)).toBe(true);
    expect(isApiErrorCode(foreign, 'rate_limit_exceeded')).toBe(true);
    // A DOMException AbortError is not ours.
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(false);
  });
});

describe('no secret in errors or in the client', () => {
  it('JSON.stringify and messages of API errors never hold the key, even if the server echoes it', async () => {
    const { client } = makeClient();
    reply(json({ code: 'invalid_api_key_format', message: `bad key ${API_KEY}`, request_id: 'r', details: { key: API_KEY, secret: 'whsec_topsecret' } }, 401));
    const error = (await fail(client)) as Error;
    const text = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
    expect(text).not.toContain('SECRET');
    expect(text).not.toContain('topsecret');
    expect(text).toContain('sk_test_[redacted]');
    expect(JSON.parse(JSON.stringify(error))).toMatchObject({ name: 'AuthenticationError', status: 401, code: 'invalid_api_key_format' });
  });

  it('connection errors do not hold the key', async () => {
    const { client } = makeClient({ maxRetries: 0 });
    replyAlways(networkError);
    const error = (await client.conversions.cancel(ID).catch((e: unknown) => e)) as Error;
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(API_KEY);
  });

  it('the client does not show its key', () => {
    const { client } = makeClient();
    const text = JSON.stringify(client);
    expect(text).not.toContain(API_KEY);
    expect(JSON.parse(text)).toMatchObject({ baseUrl: 'https://sandbox.pix-usdt.com', environment: 'test' });
    expect(JSON.stringify(Object.entries(client), (_k, v: unknown) => (typeof v === 'function' ? undefined : v))).not.toContain(API_KEY);
  });

  it('a malformed key is refused without echoing it', () => {
    const bad = 'sk_live_has space SECRETVALUE';
    let error: unknown;
    try {
      new PixUsdt({ apiKey: bad });
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ name: 'InvalidOptionsError', code: 'invalid_options' });
    expect(`${(error as Error).message} ${JSON.stringify(error)}`).not.toContain('SECRETVALUE');
  });
});
