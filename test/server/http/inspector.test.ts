// The server's /_inspector/: served to loopback clients at a loopback host name only, its
// address on RunningServer (and the start line), and the API beside it unchanged.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/client/options.js';
import { hostOf } from '../../../src/server/http/inspector.js';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 1 } }, () => undefined);
});
afterAll(() => server.close());

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${server.url}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the server inspector', () => {
  it('serves the console and its API at /_inspector/', async () => {
    expect(server.inspectorUrl).toBe(`${server.url}/_inspector/`);
    const page = await get('/_inspector/');
    expect(page.status).toBe(200);
    expect(page.type).toMatch(/^text\/html/);
    const tenants = await get('/_inspector/api/tenants');
    expect(JSON.parse(tenants.body)[0].id).toBe(server.sandbox.tenantId);
    expect((await get('/v1/users')).status).toBe(401);
  });

  it('refuses a non-loopback host name (DNS rebinding) and knows loopback addresses', async () => {
    expect((await get('/_inspector/api/tenants', { host: 'attacker.example:80' })).status).toBe(403);
    // Socket addresses and Host headers go through the one rule (client/options.ts).
    expect(isLoopbackHost('127.0.0.1')).toBe(true);
    expect(isLoopbackHost('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopbackHost('::1')).toBe(true);
    expect(isLoopbackHost('10.0.0.1')).toBe(false);
    expect(isLoopbackHost(hostOf('localhost:4010'))).toBe(true);
    expect(isLoopbackHost(hostOf('[::1]:4010'))).toBe(true);
    expect(isLoopbackHost(hostOf('127.0.0.1'))).toBe(true);
    expect(isLoopbackHost(hostOf('127.0.0.1.nip.io'))).toBe(false);
    expect(isLoopbackHost(hostOf('attacker.example:80'))).toBe(false);
    expect(hostOf('not a host')).toBe('');
    expect((await get('/_inspector/api/tenants', { host: `localhost:${new URL(server.url).port}` })).status).toBe(200);
  });
});
