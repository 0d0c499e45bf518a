/**
 * Secret hygiene of the sandbox server (issue 6): start `pix-usdt-sandbox serve --port 0` from
 * the sources, drive failures over loopback HTTP (malformed, unknown and revoked keys, 403,
 * 404, 400), then search its stderr log lines and every answer for the keys and the webhook
 * secret. Its one stdout line legitimately carries the API key: it is the way to get one.
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { leaks } from './leaks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface Server {
  child: ChildProcessByStdio<null, Readable, Readable>;
  ready: { url: string; api_key: string; tenant_id: string };
  stderr: () => string;
}

async function start(): Promise<Server> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/cli/main.ts', 'serve', '--port', '0', '--seed', '7'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const ready = await new Promise<Server['ready']>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) resolve(JSON.parse(line) as Server['ready']);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${String(code)}: ${err}`)));
  });
  return { child, ready, stderr: () => err };
}

let server: Server | undefined;
afterAll(() => {
  server?.child.kill('SIGKILL');
});

describe('sandbox server hygiene', () => {
  it('logs no API key or webhook secret on stderr, answers none in errors', { timeout: 60_000 }, async () => {
    server = await start();
    const { url, api_key } = server.ready;
    const secrets = [api_key, 'sk_test_malformed!', `sk_test_${'Z'.repeat(32)}`];
    const answers: string[] = [];
    const call = async (method: string, path: string, key: string | null, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() };
      if (key !== null) headers['authorization'] = `Bearer ${key}`;
      const response = await fetch(url + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const text = await response.text();
      answers.push(text);
      return { status: response.status, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
    };

    const endpoint = await call('POST', '/v1/webhook_endpoints', api_key, { url: 'https://partner.example/hooks', event_types: ['user.kyc_pending'] });
    expect(endpoint.status).toBe(201);
    secrets.push(String(endpoint.json['secret']));
    expect((await call('GET', '/v1/users', null)).status).toBe(401);
    expect((await call('GET', '/v1/users', secrets[1] as string)).status).toBe(401);
    expect((await call('GET', '/v1/users', secrets[2] as string)).status).toBe(401);
    expect((await call('GET', '/v1/users/00000000-0000-4000-8000-000000000000', api_key)).status).toBe(404);
    expect((await call('POST', '/v1/users', api_key, { external_id: 1 })).status).toBe(400);
    const tenant = await call('POST', '/v1/test_helpers/tenants', api_key, { capabilities: ['webhooks:read'] });
    const powerless = tenant.json['api_key'] as string;
    secrets.push(powerless);
    expect((await call('GET', '/v1/users', powerless)).status).toBe(403);
    const keys = await call('GET', '/v1/api-keys', api_key);
    const keyId = ((keys.json['data'] as Array<{ id: string }>)[0] as { id: string }).id;
    const rotated = await call('POST', `/v1/api-keys/${keyId}/rotate`, api_key);
    const fresh = String(rotated.json['api_key']);
    secrets.push(fresh);
    expect((await call('GET', '/v1/users', api_key)).status).toBe(401);
    expect((await call('GET', '/v1/users/00000000-0000-4000-8000-000000000000', fresh)).status).toBe(404);

    server.child.kill('SIGTERM');
    await new Promise((resolve) => server?.child.once('exit', resolve));
    const log = server.stderr();
    const found = [
      ...log.split('\n').flatMap((line) => leaks(`stderr line "${line.slice(0, 80)}"`, line, secrets)),
      ...answers.filter((a) => !a.includes('"secret"') && !a.includes('"api_key"')).flatMap((a) => leaks(`answer ${a.slice(0, 60)}`, a, secrets)),
    ];
    expect(found).toEqual([]);
    // The log did see the failing requests (so an empty result means something).
    expect(log.split('\n').filter((l) => / 40[134] /.test(l) || /"status":40[134]/.test(l)).length, `stderr:\n${log}`).toBeGreaterThan(3);
  });
});
