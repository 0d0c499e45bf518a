import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Webhooks from '../../src/webhooks/index.js';
import { NOW, NOW_MS, SECRET, independentHeader, independentHmac } from './helpers.js';

type WebhooksModule = typeof Webhooks;

/** A fresh copy of the module: the node:crypto lookup and the key caches are module state. */
async function freshModule(): Promise<WebhooksModule> {
  vi.resetModules();
  return import('../../src/webhooks/index.js');
}

const body = '{"id":"evt_1","type":"user.kyc_approved","created_at":"2025-06-15T15:06:40.000Z","data":{"object":{"id":"u1"}}}';
const proc = process as { getBuiltinModule?: ((id: string) => unknown) | undefined };
const original = proc.getBuiltinModule;

afterEach(() => {
  proc.getBuiltinModule = original;
  vi.restoreAllMocks();
});

describe('choice of the HMAC implementation', () => {
  it('on Node, reaches node:crypto through process.getBuiltinModule, and not WebCrypto', async () => {
    const lookups: string[] = [];
    proc.getBuiltinModule = (id: string) => {
      lookups.push(id);
      return original?.call(process, id);
    };
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    const webhooks = await freshModule();
    const header = await webhooks.signPayload(body, SECRET, { timestamp: NOW });
    expect(header).toBe(`t=${NOW},v1=${independentHmac(body, SECRET, NOW)}`);
    await webhooks.verifySignature(body, header, SECRET, { now: NOW_MS });
    expect(lookups).toContain('node:crypto');
    expect(subtleSign).not.toHaveBeenCalled();
  });

  it('where getBuiltinModule does not exist (browsers, Workers), uses WebCrypto and imports each key once', async () => {
    proc.getBuiltinModule = undefined;
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const webhooks = await freshModule();
    const header = independentHeader(body, [SECRET]);
    for (let i = 0; i < 5; i++) await webhooks.verifySignature(body, header, SECRET, { now: NOW_MS });
    await expect(webhooks.signPayload(body, SECRET, { timestamp: NOW })).resolves.toBe(header);
    expect(subtleSign).toHaveBeenCalledTimes(6);
    expect(importKey).toHaveBeenCalledTimes(1);
    const event = await webhooks.constructEvent(body, { 'x-service-signature': header }, SECRET, { now: NOW_MS });
    expect(event.id).toBe('evt_1');
  });

  it("engine: 'webcrypto' forces WebCrypto on Node", async () => {
    const subtleSign = vi.spyOn(crypto.subtle, 'sign');
    const webhooks = await freshModule();
    await webhooks.verifySignature(body, independentHeader(body, [SECRET]), SECRET, { now: NOW_MS, engine: 'webcrypto' });
    expect(subtleSign).toHaveBeenCalledTimes(1);
  });

  it('verifications started while the key is being imported share one import, and each verifies its own body', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const webhooks = await freshModule();
    const bodies = Array.from({ length: 5 }, (_, i) => body.replace('evt_1', `evt_${i}`));
    const verified = bodies.map((b) => webhooks.verifySignature(b, independentHeader(b, [SECRET]), SECRET, { now: NOW_MS, engine: 'webcrypto' }));
    const tampered = webhooks.verifySignature(bodies[0] as string, independentHeader(bodies[1] as string, [SECRET]), SECRET, { now: NOW_MS, engine: 'webcrypto' });
    // Handled from the start: the tampered verification may reject while the others still run,
    // and a rejection with no handler yet is reported as unhandled (seen on Node 24).
    const tamperedRefused = expect(tampered).rejects.toMatchObject({ reason: 'no_matching_signature' });
    await expect(Promise.all(verified)).resolves.toEqual(bodies.map(() => NOW));
    await tamperedRefused;
    expect(importKey).toHaveBeenCalledTimes(1);
  });

  it('a failed WebCrypto key import is not cached: the next verification imports again', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey').mockRejectedValueOnce(new Error('import failed'));
    const webhooks = await freshModule();
    const header = independentHeader(body, [SECRET]);
    await expect(webhooks.verifySignature(body, header, SECRET, { now: NOW_MS, engine: 'webcrypto' })).rejects.toThrow('import failed');
    await expect(webhooks.verifySignature(body, header, SECRET, { now: NOW_MS, engine: 'webcrypto' })).resolves.toBe(NOW);
    expect(importKey).toHaveBeenCalledTimes(2);
  });

  it('the WebCrypto key cache is bounded and still correct past its bound', async () => {
    const importKey = vi.spyOn(crypto.subtle, 'importKey');
    const webhooks = await freshModule();
    const secrets = Array.from({ length: 40 }, (_, i) => `whsec_rotating_${i}`);
    for (const secret of secrets) {
      await webhooks.verifySignature(body, independentHeader(body, [secret]), secret, { now: NOW_MS, engine: 'webcrypto' });
    }
    // The first secret was evicted: it is imported again, and still verifies.
    await webhooks.verifySignature(body, independentHeader(body, [secrets[0] as string]), secrets[0] as string, { now: NOW_MS, engine: 'webcrypto' });
    expect(importKey).toHaveBeenCalledTimes(41);
  });
});
