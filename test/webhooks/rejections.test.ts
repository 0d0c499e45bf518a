import { describe, expect, it } from 'vitest';
import { WebhookVerificationError, constructEvent, isWebhookVerificationError, verifySignature, type WebhookVerificationReason } from '../../src/webhooks/index.js';
import { ENGINES, NOW, NOW_MS, OTHER_SECRET, SECRET, conversionEvent, independentHeader, independentHmac, rejection } from './helpers.js';

const body = JSON.stringify(conversionEvent());

/** Asserts a verification failure with this reason, whose message does not leak the secret. */
function expectReason(error: Error & Record<string, unknown>, reason: WebhookVerificationReason): void {
  expect(error).toBeInstanceOf(WebhookVerificationError);
  expect(isWebhookVerificationError(error)).toBe(true);
  expect(error.name).toBe('WebhookVerificationError');
  expect(error.reason).toBe(reason);
  for (const text of [error.message, String(error), JSON.stringify(error), error.stack ?? '']) {
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(OTHER_SECRET);
  }
}

describe.each(ENGINES)('rejections, engine %s', (engine) => {
  const verify = (raw: unknown, header: string | undefined, secret: string | string[] = SECRET, now: number = NOW_MS, toleranceSeconds?: number) =>
    rejection(verifySignature(raw as string, header, secret, { now, engine, ...(toleranceSeconds === undefined ? {} : { toleranceSeconds }) }));

  it('tampered body: one byte changed, or whitespace added', async () => {
    const header = independentHeader(body, [SECRET]);
    expectReason(await verify(body.replace('1000.00', '9000.00'), header), 'no_matching_signature');
    expectReason(await verify(`${body} `, header), 'no_matching_signature');
    // A body a JSON parser re-serialized (key order or spacing changes) does not verify either.
    expectReason(await verify(JSON.stringify(JSON.parse(body), null, 2), header), 'no_matching_signature');
  });

  it('tampered timestamp: the signature covers t', async () => {
    const sig = independentHmac(body, SECRET, NOW);
    expectReason(await verify(body, `t=${NOW + 1},v1=${sig}`), 'no_matching_signature');
  });

  it('wrong secret, one or several', async () => {
    const header = independentHeader(body, [SECRET]);
    expectReason(await verify(body, header, OTHER_SECRET), 'no_matching_signature');
    expectReason(await verify(body, header, [OTHER_SECRET, `${SECRET}x`]), 'no_matching_signature');
    // The key is the whole whsec_ string: the part after the prefix alone does not verify.
    expectReason(await verify(body, header, SECRET.slice('whsec_'.length)), 'no_matching_signature');
  });

  it('old timestamp: accepted exactly at the edge (300 s), refused one second beyond', async () => {
    const atEdge = independentHeader(body, [SECRET], NOW - 300);
    await expect(verifySignature(body, atEdge, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW - 300);
    // The current second counts as a whole: 300.999 s after t is still 300 s.
    await expect(verifySignature(body, atEdge, SECRET, { now: NOW_MS + 999, engine })).resolves.toBe(NOW - 300);
    const beyond = independentHeader(body, [SECRET], NOW - 301);
    expectReason(await verify(body, beyond), 'timestamp_too_old');
    expectReason(await verify(body, independentHeader(body, [SECRET], NOW - 86_400)), 'timestamp_too_old');
  });

  it('future timestamp: accepted exactly at the edge, refused beyond', async () => {
    const atEdge = independentHeader(body, [SECRET], NOW + 300);
    await expect(verifySignature(body, atEdge, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW + 300);
    expectReason(await verify(body, independentHeader(body, [SECRET], NOW + 301)), 'timestamp_in_future');
    expectReason(await verify(body, independentHeader(body, [SECRET], NOW + 86_400)), 'timestamp_in_future');
  });

  it('a custom tolerance applies in both directions', async () => {
    expectReason(await verify(body, independentHeader(body, [SECRET], NOW - 11), SECRET, NOW_MS, 10), 'timestamp_too_old');
    expectReason(await verify(body, independentHeader(body, [SECRET], NOW + 11), SECRET, NOW_MS, 10), 'timestamp_in_future');
    await expect(verifySignature(body, independentHeader(body, [SECRET], NOW - 10), SECRET, { now: NOW_MS, toleranceSeconds: 10, engine })).resolves.toBe(NOW - 10);
    await expect(verifySignature(body, independentHeader(body, [SECRET], NOW - 5000), SECRET, { now: NOW_MS, toleranceSeconds: Infinity, engine })).resolves.toBe(NOW - 5000);
  });

  it('the signature is checked before the time: a forged old header is no_matching_signature', async () => {
    expectReason(await verify(body, `t=${NOW - 10_000},v1=${'ab'.repeat(32)}`), 'no_matching_signature');
  });

  it('missing header: undefined, null or empty', async () => {
    expectReason(await verify(body, undefined), 'missing_header');
    expectReason(await verify(body, null as never), 'missing_header');
    expectReason(await verify(body, ''), 'missing_header');
    expectReason(await verify(body, [] as never), 'missing_header');
  });

  it.each([
    ['no timestamp', `v1=${'a'.repeat(64)}`],
    ['no v1 signature', `t=${NOW}`],
    ['only an unknown scheme', `t=${NOW},v0=${'a'.repeat(64)}`],
    ['timestamp not a number', `t=abc,v1=${'a'.repeat(64)}`],
    ['timestamp in milliseconds-like garbage', `t=${NOW}.5,v1=${'a'.repeat(64)}`],
    ['negative timestamp', `t=-${NOW},v1=${'a'.repeat(64)}`],
    ['empty timestamp', `t=,v1=${'a'.repeat(64)}`],
    ['two different timestamps', `t=${NOW},t=${NOW + 1},v1=${'a'.repeat(64)}`],
    ['short signature', `t=${NOW},v1=${'a'.repeat(63)}`],
    ['long signature', `t=${NOW},v1=${'a'.repeat(65)}`],
    ['non-hex signature', `t=${NOW},v1=${'g'.repeat(64)}`],
    ['empty signature', `t=${NOW},v1=`],
    ['an item without =', `t=${NOW},v1`],
    ['an empty item', `t=${NOW},,v1=${'a'.repeat(64)}`],
    ['a trailing comma', `t=${NOW},v1=${'a'.repeat(64)},`],
    ['a key-less item', `t=${NOW},=${'a'.repeat(64)}`],
    ['Stripe-like garbage', 'not a signature'],
  ])('malformed header: %s', async (_name, header) => {
    expectReason(await verify(body, header), 'malformed_header');
  });

  it('parsed body: an object or an array, with a message that names the fix', async () => {
    const header = independentHeader(body, [SECRET]);
    for (const parsed of [JSON.parse(body), [1, 2], {}]) {
      const error = await verify(parsed, header);
      expectReason(error, 'parsed_body');
      expect(error.message).toMatch(/body parser/);
      expect(error.message).toContain('express.raw');
    }
  });

  it('missing body: undefined, null or a number', async () => {
    const header = independentHeader(body, [SECRET]);
    for (const raw of [undefined, null, 42]) expectReason(await verify(raw, header), 'missing_body');
  });

  it('constructEvent: invalid JSON, a non-envelope, invalid UTF-8 (all correctly signed)', async () => {
    const cases: (string | Uint8Array)[] = [
      '{"id": ',
      'null',
      '[]',
      JSON.stringify({ id: 'evt', type: 'conversion.completed', created_at: 'x' }),
      JSON.stringify({ id: 'evt', type: 'conversion.completed', created_at: 'x', data: { object: null } }),
      JSON.stringify({ id: 'evt', type: 'conversion.completed', created_at: 'x', data: { object: [] } }),
      JSON.stringify({ id: '', type: 'conversion.completed', created_at: 'x', data: { object: {} } }),
      JSON.stringify({ id: 'evt', type: 7, created_at: 'x', data: { object: {} } }),
      JSON.stringify({ id: 'evt', type: 'conversion.completed', data: { object: {} } }),
      new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
    ];
    for (const raw of cases) {
      const headers = { 'x-service-signature': independentHeader(raw, [SECRET]) };
      expectReason(await rejection(constructEvent(raw, headers, SECRET, { now: NOW_MS, engine })), 'invalid_payload');
    }
  });

  it('constructEvent: the event id header must match the signed envelope id', async () => {
    const headers = { 'x-service-signature': independentHeader(body, [SECRET]), 'x-service-event-id': 'another-event' };
    expectReason(await rejection(constructEvent(body, headers, SECRET, { now: NOW_MS, engine })), 'event_id_mismatch');
  });

  it('constructEvent: a bad signature is reported before an unparseable payload', async () => {
    const headers = { 'x-service-signature': independentHeader('{"id": ', [OTHER_SECRET]) };
    expectReason(await rejection(constructEvent('{"id": ', headers, SECRET, { now: NOW_MS, engine })), 'no_matching_signature');
    const bytes = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]); // not UTF-8
    const bytesHeaders = { 'x-service-signature': independentHeader(bytes, [OTHER_SECRET]) };
    expectReason(await rejection(constructEvent(bytes, bytesHeaders, SECRET, { now: NOW_MS, engine })), 'no_matching_signature');
  });

  it('constructEvent: a signature out of the tolerance is reported before an unparseable payload', async () => {
    const headers = { 'x-service-signature': independentHeader('{"id": ', [SECRET], NOW - 301) };
    expectReason(await rejection(constructEvent('{"id": ', headers, SECRET, { now: NOW_MS, engine })), 'timestamp_too_old');
  });
});

describe('isWebhookVerificationError', () => {
  it('recognizes the class across realms by name, and nothing else', () => {
    expect(isWebhookVerificationError(new WebhookVerificationError('missing_header', 'x'))).toBe(true);
    expect(isWebhookVerificationError(Object.assign(new Error('x'), { name: 'WebhookVerificationError' }))).toBe(true);
    expect(isWebhookVerificationError(new Error('x'))).toBe(false);
    expect(isWebhookVerificationError(null)).toBe(false);
    expect(isWebhookVerificationError('WebhookVerificationError')).toBe(false);
  });
});
