/**
 * Client options: base URL from the key, https only with the loopback exception, the browser
 * refusal of live keys, validation of the options.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { PRODUCTION_BASE_URL, PixUsdt, SANDBOX_BASE_URL, isInvalidOptionsError } from '../../src/index.js';
import { ID, fixtures as f, json, reply, requests, useMockServer } from './helpers.js';

useMockServer();

const TEST_KEY = `sk_test_${'a'.repeat(32)}`;
const LIVE_KEY = `sk_live_${'b'.repeat(32)}`;

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
    expect(new PixUsdt({ apiKey: TEST_KEY }).baseUrl).toBe(SANDBOX_BASE_URL);
    expect(new PixUsdt({ apiKey: LIVE_KEY }).baseUrl).toBe(PRODUCTION_BASE_URL);
    expect(SANDBOX_BASE_URL).toMatch(/^https:\/\//);
    expect(PRODUCTION_BASE_URL).toMatch(/^https:\/\//);
  });

  it('a live key really calls production', async () => {
    reply(json(f.user));
    await new PixUsdt({ apiKey: LIVE_KEY }).users.retrieve(ID);
    expect(requests()[0]!.url.origin).toBe(PRODUCTION_BASE_URL);
  });

  it('baseUrl overrides the key prefix, keeping a path prefix', async () => {
    const client = new PixUsdt({ apiKey: LIVE_KEY, baseUrl: 'https://proxy.example.com/pix/' });
    expect(client.baseUrl).toBe('https://proxy.example.com/pix');
    reply(json(f.user));
    await client.users.retrieve(ID);
    expect(requests()[0]!.url.href).toBe(`https://proxy.example.com/pix/v1/users/${ID}`);
  });

  it.each(['http://localhost:4010', 'http://127.0.0.1:4010', 'http://127.8.9.10', 'http://[::1]:4010', 'https://sandbox.example.com'])('accepts %s', (url) => {
    expect(() => new PixUsdt({ apiKey: TEST_KEY, baseUrl: url })).not.toThrow();
  });

  it.each(['http://sandbox.example.com', 'http://10.0.0.1', 'http://localhost.evil.com', 'ftp://localhost', 'not a url', 'https://x.com/?q=1'])('refuses %s', (url) => {
    expect(isInvalidOptionsError(refused({ apiKey: TEST_KEY, baseUrl: url }))).toBe(true);
  });

  it('uses the given fetch', async () => {
    const seen: string[] = [];
    const client = new PixUsdt({
      apiKey: TEST_KEY,
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
  it.each([undefined, '', 'pk_test_x', 'sk_test_', 'sk_prod_x', 'sk_test_a b', 42, 'sk_test_abc', `sk_test_${'a'.repeat(31)}!`, `sk_live_${'a'.repeat(33)}`])(
    'refuses %j',
    (apiKey) => {
      const error = refused({ apiKey } as unknown as ConstructorParameters<typeof PixUsdt>[0]);
      expect(error).toMatchObject({ name: 'InvalidOptionsError', code: 'invalid_options' });
      expect((error as Error).message).toContain('apiKey');
    },
  );

  it('a missing key: the message says what to pass, with no made-up key in it', () => {
    const error = refused({} as ConstructorParameters<typeof PixUsdt>[0]) as Error;
    expect(error.message).toBe(
      'Missing apiKey: pass new PixUsdt({ apiKey }), where a key is "sk_test_" (sandbox) or "sk_live_" and 32 letters or digits.',
    );
    expect(error.message).not.toContain('[redacted]');
  });

  it('sk_test_abc fails in the constructor, saying what a key looks like and not the key', () => {
    const error = refused({ apiKey: 'sk_test_abc' }) as Error;
    expect(isInvalidOptionsError(error)).toBe(true);
    expect(error.message).toBe(
      'Malformed apiKey: a key is "sk_test_" (sandbox) or "sk_live_" and 32 letters or digits (the key is not shown).',
    );
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain('abc');
  });

  it('accepts the shape the sandbox issues', async () => {
    const { createSandbox } = await import('../../src/sandbox/index.js');
    const sandbox = createSandbox({ seed: 'key-shape' });
    expect(() => new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch })).not.toThrow();
  });

  it('refuses invalid numbers and modes', () => {
    expect(refused({ apiKey: TEST_KEY, maxRetries: -1 })).toMatchObject({ name: 'InvalidOptionsError' });
    expect(refused({ apiKey: TEST_KEY, timeoutMs: 0 })).toMatchObject({ name: 'InvalidOptionsError' });
    expect(refused({ apiKey: TEST_KEY, validation: 'loose' as 'warn' })).toMatchObject({ name: 'InvalidOptionsError' });
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
    const error = refused({ apiKey: LIVE_KEY });
    expect(error).toMatchObject({ name: 'InvalidOptionsError' });
    expect((error as Error).message).toMatch(/dangerouslyAllowBrowser/);
    expect(() => new PixUsdt({ apiKey: LIVE_KEY, dangerouslyAllowBrowser: true })).not.toThrow();
    expect(() => new PixUsdt({ apiKey: TEST_KEY })).not.toThrow();
  });

  it('allows a live key outside a browser', () => {
    expect(() => new PixUsdt({ apiKey: LIVE_KEY })).not.toThrow();
  });
});
