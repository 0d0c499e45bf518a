/**
 * The real binary with --https: a certificate generated for the session, or given by files.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { generate } from 'selfsigned';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ready, exitCode, serve, stopAll, waitFor } from '../helpers.js';
import { CPF } from '../../support/fixtures.js';

let dirs: string[] = [];
afterEach(async () => {
  stopAll();
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  dirs = [];
});

interface Answer {
  status: number;
  body: string;
  cert: PeerCertificate;
}

function get(ready: Ready, path: string, tls: https.RequestOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = https.request(`${ready.url}${path}`, { headers: { authorization: `Bearer ${ready.api_key}` }, agent: false, ...tls }, (res) => {
      const cert = (res.socket as TLSSocket).getPeerCertificate();
      let body = '';
      res.setEncoding('utf8').on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, cert }));
    });
    req.on('error', reject);
    req.setTimeout(15_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

describe('--https with a certificate generated for the session', () => {
  it('serves HTTPS; the certificate is self-signed for localhost and 127.0.0.1', async () => {
    const { child, ready } = await serve(['--https']);
    expect(ready.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    // TLS verification disabled for this test only: the certificate is self-signed.
    const answer = await get(ready, '/v1/users', { rejectUnauthorized: false });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ data: [], next_cursor: null });
    expect(answer.cert.subjectaltname).toContain('DNS:localhost');
    expect(answer.cert.subjectaltname).toContain('IP Address:127.0.0.1');
    expect(new Date(answer.cert.valid_to).getTime()).toBeGreaterThan(Date.now());
    // With verification on, the self-signed certificate is refused: this really is TLS.
    await expect(get(ready, '/v1/users', {})).rejects.toThrow(/self[- ]signed/i);
    // The log line is written once the answer is sent: wait for it.
    await waitFor(child, () => (/GET \/v1\/users 200/.test(child.stderr()) ? true : undefined), 'the log line');
  });

  it('--host 0.0.0.0 is allowed with --https and the URL names localhost', async () => {
    const { ready } = await serve(['--https', '--host', '0.0.0.0']);
    expect(ready.url).toMatch(/^https:\/\/localhost:\d+$/);
    const answer = await get({ ...ready, url: ready.url.replace('localhost', '127.0.0.1') }, '/v1/users', { rejectUnauthorized: false });
    expect(answer.status).toBe(200);
  });

  it('the client (PixUsdt) in a child with NODE_TLS_REJECT_UNAUTHORIZED=0', async () => {
    const { ready } = await serve(['--https']);
    const script = `
      import { PixUsdt } from ${JSON.stringify(fileURLToPath(new URL('../../../src/index.ts', import.meta.url)))};
      const client = new PixUsdt({ apiKey: process.env.KEY, baseUrl: process.env.URL, maxRetries: 0 });
      const user = await client.users.create({ external_id: 'tls-1', name: 'Ana', document_type: 'cpf', document_number: '${CPF}' });
      const again = await client.users.retrieve(user.id);
      console.log(JSON.stringify({ id: user.id, same: again.id === user.id }));
    `;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', script],
        { env: { ...process.env, NODE_TLS_REJECT_UNAUTHORIZED: '0', KEY: ready.api_key, URL: ready.url }, timeout: 20_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    const result = JSON.parse(stdout) as { id: string; same: boolean };
    expect(result.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.same).toBe(true);
  });
});

describe('--https --cert FILE --key FILE', () => {
  it('serves the given certificate, which a client verifies against it as CA', async () => {
    const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] }],
    });
    const dir = await mkdtemp(join(tmpdir(), 'pix-usdt-tls-'));
    dirs.push(dir);
    await writeFile(join(dir, 'cert.pem'), pems.cert);
    await writeFile(join(dir, 'key.pem'), pems.private);
    const { child, ready } = await serve(['--https', '--cert', join(dir, 'cert.pem'), '--key', join(dir, 'key.pem')]);
    // Full verification: the test trusts exactly this certificate.
    const answer = await get(ready, '/v1/users', { ca: pems.cert });
    expect(answer.status).toBe(200);
    expect(answer.cert.fingerprint.toLowerCase()).toBe(pems.fingerprint.toLowerCase());
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });
});
