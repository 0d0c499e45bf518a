import { describe, expect, it } from 'vitest';
import { signPayload, verifySignature } from '../../src/webhooks/index.js';
import { ENGINES, NOW, NOW_MS, OTHER_SECRET, SECRET, conversionEvent, independentHeader, independentHmac } from './helpers.js';

const body = JSON.stringify(conversionEvent());

describe.each(ENGINES)('signatures, engine %s', (engine) => {
  it('verifies a header made with an independent HMAC (string body)', async () => {
    const header = independentHeader(body, [SECRET]);
    await expect(verifySignature(body, header, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('verifies bytes: Buffer, Uint8Array, ArrayBuffer and another typed-array view', async () => {
    const header = independentHeader(body, [SECRET]);
    const buffer = Buffer.from(body, 'utf8');
    const bytes = new Uint8Array(buffer);
    const arrayBuffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    // A view in the middle of a larger buffer: only its window is the body.
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    const view = new DataView(padded.buffer, 4, bytes.length);
    for (const raw of [buffer, bytes, arrayBuffer, view]) {
      await expect(verifySignature(raw as never, header, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
    }
  });

  it('signs exactly what an independent HMAC computes (the key is the whole whsec_ string)', async () => {
    const header = await signPayload(body, SECRET, { timestamp: NOW, engine });
    expect(header).toBe(`t=${NOW},v1=${independentHmac(body, SECRET, NOW)}`);
    const bytesHeader = await signPayload(new TextEncoder().encode(body), SECRET, { timestamp: NOW, engine });
    expect(bytesHeader).toBe(header);
  });

  it('round-trips: what signPayload signs, verifySignature accepts', async () => {
    for (const payload of ['', '{}', body, 'x'.repeat(100_000)]) {
      const header = await signPayload(payload, SECRET, { timestamp: NOW, engine });
      await expect(verifySignature(payload, header, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
    }
  });

  it('takes the timestamp as a Date and defaults it to now', async () => {
    const fromDate = await signPayload(body, SECRET, { timestamp: new Date(NOW_MS + 999), engine });
    expect(fromDate.startsWith(`t=${NOW},`)).toBe(true);
    const before = Math.floor(Date.now() / 1000);
    const header = await signPayload(body, SECRET, { engine });
    const t = Number(/^t=(\d+),/.exec(header)?.[1]);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    await expect(verifySignature(body, header, SECRET, { engine })).resolves.toBe(t);
  });

  it('rotation: signs one v1= per secret, and either secret verifies', async () => {
    const header = await signPayload(body, [SECRET, OTHER_SECRET], { timestamp: NOW, engine });
    expect(header).toBe(independentHeader(body, [SECRET, OTHER_SECRET]));
    const viaOption = await signPayload(body, SECRET, { timestamp: NOW, secrets: [OTHER_SECRET], engine });
    expect(viaOption).toBe(header);
    await expect(verifySignature(body, header, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
    await expect(verifySignature(body, header, OTHER_SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('rotation on the receiver: a list of secrets, any of which may match', async () => {
    const oldOnly = independentHeader(body, [OTHER_SECRET]);
    const newOnly = independentHeader(body, [SECRET]);
    await expect(verifySignature(body, oldOnly, [SECRET, OTHER_SECRET], { now: NOW_MS, engine })).resolves.toBe(NOW);
    await expect(verifySignature(body, newOnly, [OTHER_SECRET, SECRET], { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('ignores unknown schemes and accepts upper-case hex and spaces after commas', async () => {
    const sig = independentHmac(body, SECRET, NOW);
    const header = `t=${NOW}, v0=${'0'.repeat(64)}, v1=${sig.toUpperCase()}, v2=future`;
    await expect(verifySignature(body, header, SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('accepts now as a Date, a number of ms, or a function', async () => {
    const header = independentHeader(body, [SECRET]);
    for (const now of [new Date(NOW_MS), NOW_MS, () => NOW_MS, () => new Date(NOW_MS)]) {
      await expect(verifySignature(body, header, SECRET, { now, engine })).resolves.toBe(NOW);
    }
  });

  it('keys the HMAC with the UTF-8 bytes of a non-ASCII secret', async () => {
    const secret = 'whsec_ção_🔑';
    const header = await signPayload(body, secret, { timestamp: NOW, engine });
    expect(header).toBe(`t=${NOW},v1=${independentHmac(body, secret, NOW)}`);
    await expect(verifySignature(body, header, secret, { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('takes the header as Node types allow it: a string array', async () => {
    const header = independentHeader(body, [SECRET]);
    await expect(verifySignature(body, [header], SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
    await expect(verifySignature(body, [header, independentHeader(body, [OTHER_SECRET])], OTHER_SECRET, { now: NOW_MS, engine })).resolves.toBe(NOW);
  });

  it('refuses an empty secret with a TypeError (a configuration error, not a bad delivery)', async () => {
    const header = independentHeader(body, [SECRET]);
    await expect(verifySignature(body, header, '', { now: NOW_MS, engine })).rejects.toBeInstanceOf(TypeError);
    await expect(verifySignature(body, header, [], { now: NOW_MS, engine })).rejects.toBeInstanceOf(TypeError);
    await expect(signPayload(body, '', { engine })).rejects.toBeInstanceOf(TypeError);
  });
});
