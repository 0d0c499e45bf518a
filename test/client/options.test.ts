/**
 * Client options: base URL from the key, https only with the loopback exception, the browser
 * refusal of live keys, validation of the options.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PRODUCTION_BASE_URL, PixUsdt, SANDBOX_BASE_URL, isInvalidOptionsError } from '../../src/index.js';
import { ID, fixtures as f, json, reply, requests, useMockServer } from './helpers.js';

useMockServer();

const refused = (options: ConstructorParameters<typeof PixUsdt>[0]): unknown => {
  try {
    new PixUsdt(options);
  } catch (e) {
    return e;
  }
  return undefined;
};

describe('base URL', () => {
  it('sk_test_ goes to the sandbox, sk_live_ to production', () => {
    expect(new PixUsdt({ apiKey: 'sk_test_x' }).baseUrl).toBe(SANDBOX_BASE_URL);
    expect(new PixUsdt({ apiKey: 'sk_live_x' }).baseUrl).toBe(PRODUCTION_BASE_URL);
    expect(SANDBOX_BASE_URL).toMatch(/^https:\/\//);
    expect(PRODUCTION_BASE_URL).toMatch(/^https:\/\//);
  });

  it('a live key really calls production', async () => {
    reply(json(f.user));
    await new PixUsdt({ apiKey: 'sk_live_x' }).users.retrieve(ID);
    expect(requests()[0]!.url.origin).toBe(PRODUCTION_BASE_URL);
  });

  it('baseUrl overrides the key prefix, keeping a path prefix', async () => {
    const client = new PixUsdt({ apiKey: 'sk_live_x', baseUrl: 'https://proxy.example.com/pix/' });
    expect(client.baseUrl).toBe('https://proxy.example.com/pix');
    reply(json(f.user));
    await client.users.retrieve(ID);
    expect(requests()[0]!.url.href).toBe(`https://proxy.example.com/pix/v1/users/${ID}`);
  });

  it.each(['http://localhost:4010', 'http://127.0.0.1:4010', 'http://127.8.9.10', 'http://[::1]:4010', 'https://sandbox.example.com'])('accepts %s', (url) => {
    expect(() => new PixUsdt({ apiKey: 'sk_test_x', baseUrl: url })).not.toThrow();
  });

  it.each(['http://sandbox.example.com', 'http://10.0.0.1', 'http://localhost.evil.com', 'ftp://localhost', 'not a url', 'https://x.com/?q=1'])('refuses %s', (url) => {
    expect(isInvalidOptionsError(refused({ apiKey: 'sk_test_x', baseUrl: url }))).toBe(true);
  });

  it('uses the given fetch', async () => {
    const seen: string[] = [];
    const client = new PixUsdt({
      apiKey: 'sk_test_x',
      fetch: async (input) => {
        seen.push(input instanceof Request ? input.url : String(input));
        return Response.json(f.user);
      },
    });
    await expect(client.users.retrieve(ID)).resolves.toMatchObject({ id: ID });
    expect(seen).toEqual([`${SANDBOX_BASE_URL}/v1/users/${ID}`]);
    expect(requests()).toHaveLength(0);
  });
});

describe('apiKey', () => {
  it.each([undefined, '', 'pk_test_x', 'sk_test_', 'sk_prod_x', 'sk_test_a b', 42])('refuses %j', (apiKey) => {
    const error = refused({ apiKey } as unknown as ConstructorParameters<typeof PixUsdt>[0]);
    expect(error).toMatchObject({ name: 'InvalidOptionsError' });
  });

  it('refuses invalid numbers and modes', () => {
    expect(refused({ apiKey: 'sk_test_x', maxRetries: -1 })).toMatchObject({ name: 'InvalidOptionsError' });
    expect(refused({ apiKey: 'sk_test_x', timeoutMs: 0 })).toMatchObject({ name: 'InvalidOptionsError' });
    expect(refused({ apiKey: 'sk_test_x', validation: 'loose' as 'warn' })).toMatchObject({ name: 'InvalidOptionsError' });
  });
});

describe('browser', () => {
  const g = globalThis as Record<string, unknown>;
  afterEach(() => {
    delete g['window'];
    delete g['document'];
  });

  it('refuses a live key in a browser unless dangerouslyAllowBrowser', () => {
    g['window'] = {};
    g['document'] = {};
    const error = refused({ apiKey: 'sk_live_x' });
    expect(error).toMatchObject({ name: 'InvalidOptionsError' });
    expect((error as Error).message).toMatch(/dangerouslyAllowBrowser/);
    expect(() => new PixUsdt({ apiKey: 'sk_live_x', dangerouslyAllowBrowser: true })).not.toThrow();
    expect(() => new PixUsdt({ apiKey: 'sk_test_x' })).not.toThrow();
  });

  it('allows a live key outside a browser', () => {
    expect(() => new PixUsdt({ apiKey: 'sk_live_x' })).not.toThrow();
  });
});
