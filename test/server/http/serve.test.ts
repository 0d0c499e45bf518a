/**
 * The real binary over plain HTTP on loopback: the ready line, round trips with fetch and
 * with the client, the request log, limits, malformed requests and graceful shutdown.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { type Child, type Ready, exitCode, serve, stopAll, waitFor } from '../helpers.js';
import { CPF, cpf } from '../../support/fixtures.js';

afterEach(stopAll);

function headers(ready: Ready, extra: Record<string, string> = {}): Record<string, string> {
  return { authorization: `Bearer ${ready.api_key}`, ...extra };
}

async function createUser(ready: Ready, n: number, idempotencyKey = `key-${n}`): Promise<Response> {
  return fetch(`${ready.url}/v1/users`, {
    method: 'POST',
    headers: headers(ready, { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }),
    body: JSON.stringify({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }),
  });
}

describe('the ready line', () => {
  it('is exactly one JSON line on stdout, with the real port, the key and the tenant', async () => {
    const { child, ready } = await serve(['--seed', '7']);
    expect(child.stdout().endsWith('\n')).toBe(true);
    expect(child.stdout().split('\n')).toHaveLength(2); // one line and the final newline
    expect(Object.keys(JSON.parse(child.stdout()) as object).sort()).toEqual(['api_key', 'control_key', 'inspector_url', 'tenant_id', 'url']);
    expect(ready.inspector_url).toBe(`${ready.url}/_inspector/`);
    const console = await fetch(ready.inspector_url);
    expect(console.status).toBe(200);
    expect(await console.text()).toContain('<script src="app.js">');
    const script = await fetch(`${ready.inspector_url}app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(5000);
    const url = new URL(ready.url);
    expect(url.protocol).toBe('http:');
    expect(url.hostname).toBe('127.0.0.1');
    expect(Number(url.port)).toBeGreaterThan(0);
    expect(url.pathname).toBe('/');
    expect(ready.api_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(ready.tenant_id).toMatch(/^[0-9a-f-]{36}$/);
    // The key is never logged: not in the start-up line either.
    await waitFor(child, () => (child.stderr().includes('listening on') ? true : undefined), 'the start-up log');
    expect(child.stderr()).toContain(ready.url);
    expect(child.stderr()).not.toContain(ready.api_key);
    // One shape for "the API key" (issue 36): a new tenant's `api_key` is the secret string, as
    // the ready line prints it, used as printed; its key objects are `api_keys`.
    const made = await fetch(`${ready.url}/v1/test_helpers/tenants`, { method: 'POST', headers: headers(ready, { 'content-type': 'application/json' }), body: '{}' });
    const tenant = (await made.json()) as { tenant_id: string; api_key: unknown; api_keys: Array<{ api_key: string; id: string }> };
    expect(made.status).toBe(201);
    expect(typeof tenant.api_key).toBe(typeof ready.api_key);
    expect(tenant.api_key).toMatch(/^sk_test_[A-Za-z0-9]{32}$/);
    expect(tenant.api_keys.map((k) => k.api_key)).toEqual([tenant.api_key]);
    const asPrinted = await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${String(tenant.api_key)}` } });
    expect(asPrinted.status).toBe(200);
    expect(await asPrinted.json()).toMatchObject({ data: [] });
  });

  it('--seed makes the key and tenant deterministic; different seeds differ', async () => {
    const [a, b, c] = await Promise.all([serve(['--seed', '42']), serve(['--seed', '42']), serve(['--seed', '43'])]);
    expect(a.ready.api_key).toBe(b.ready.api_key);
    expect(a.ready.tenant_id).toBe(b.ready.tenant_id);
    expect(c.ready.api_key).not.toBe(a.ready.api_key);
    expect(a.ready.url).not.toBe(b.ready.url); // --port 0: two free ports
  });

  it('--environment production issues a sk_live_ key and hides the test helpers', async () => {
    const { ready } = await serve(['--environment', 'production']);
    expect(ready.api_key).toMatch(/^sk_live_/);
    const res = await fetch(`${ready.url}/v1/test_helpers/clock`, { headers: headers(ready) });
    expect(res.status).toBe(404);
  });
});

describe('round trips', () => {
  it('plain fetch: create, replay with the same Idempotency-Key, retrieve', async () => {
    const { ready } = await serve();
    const created = await createUser(ready, 1);
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toMatch(/application\/json/);
    expect(created.headers.get('x-request-id')).toMatch(/^req_/);
    const user = (await created.json()) as { id: string; external_id: string };
    expect(user.external_id).toBe('ext-1');

    const replay = await createUser(ready, 1);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replay.json()) as { id: string }).id).toBe(user.id);

    const got = await fetch(`${ready.url}/v1/users/${user.id}`, { headers: headers(ready) });
    expect(got.status).toBe(200);
    expect(((await got.json()) as { id: string }).id).toBe(user.id);
  });

  it('errors come back in the envelope with the engine status', async () => {
    const { ready } = await serve();
    const noKey = await fetch(`${ready.url}/v1/users`);
    expect(noKey.status).toBe(401);
    const body = (await noKey.json()) as { code: string; request_id: string };
    expect(body.code).toBe('authentication_required');
    expect(body.request_id).toBe(noKey.headers.get('x-request-id'));
    const badJson = await fetch(`${ready.url}/v1/users`, { method: 'POST', headers: headers(ready, { 'idempotency-key': 'k' }), body: '{nope' });
    expect(badJson.status).toBe(400);
    expect(((await badJson.json()) as { code: string }).code).toBe('invalid_json');
  });

  it('HEAD and DELETE keep the HTTP semantics (no body for HEAD, 204 empty for the user delete)', async () => {
    const { ready } = await serve();
    const user = (await (await createUser(ready, 2)).json()) as { id: string };
    const deleted = await fetch(`${ready.url}/v1/users/${user.id}`, { method: 'DELETE', headers: headers(ready, { 'idempotency-key': 'del-1' }) });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    const head = await fetch(`${ready.url}/v1/users`, { method: 'HEAD', headers: headers(ready) });
    expect(await head.text()).toBe('');
  });

  it('the client (PixUsdt) pointed at the server URL', async () => {
    const { ready } = await serve();
    const client = new PixUsdt({ apiKey: ready.api_key, baseUrl: ready.url, maxRetries: 0, validation: 'strict' });
    const user = await client.users.create({ external_id: 'client-1', name: 'Ana', document_type: 'cpf', document_number: CPF });
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const again = await client.users.retrieve(user.id);
    expect(again.kyc_status).toBe('approved');
    const ids: string[] = [];
    for await (const u of client.users.list({ limit: 1 })) ids.push(u.id);
    expect(ids).toEqual([user.id]);
  });
});

describe('the request log on stderr', () => {
  it('one line per request: method, path, status, time, request id; no key, no query string', async () => {
    const { child, ready } = await serve();
    const secretCursor = 'cursor-value-that-must-not-be-logged';
    const res = await fetch(`${ready.url}/v1/users?limit=1&cursor=${secretCursor}`, { headers: headers(ready) });
    const requestId = res.headers.get('x-request-id') as string;
    await res.arrayBuffer();
    const created = await createUser(ready, 3);
    const createdId = created.headers.get('x-request-id') as string;
    const line = await waitFor(child, () => child.stderr().split('\n').find((l) => l.includes(createdId)), 'the log line');
    expect(line).toMatch(new RegExp(`^POST /v1/users 201 \\d+(\\.\\d)?ms ${createdId}$`));
    const first = child.stderr().split('\n').find((l) => l.includes(requestId));
    // An invalid cursor answers 400; the line shows it, without the query.
    expect(first).toMatch(new RegExp(`^GET /v1/users ${res.status} \\d+(\\.\\d)?ms ${requestId}$`));
    expect(child.stderr()).not.toContain(secretCursor);
    expect(child.stderr()).not.toContain(ready.api_key);
    expect(child.stderr()).not.toContain('authorization');
    expect(child.stdout().split('\n')).toHaveLength(2); // still one line on stdout
  });
});

describe('limits and malformed requests', () => {
  it('a body over 1 MB answers the validation envelope, and the server carries on', async () => {
    const { ready } = await serve();
    const status = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      let answered = false;
      const req = http.request(`${ready.url}/v1/users`, { method: 'POST', headers: headers(ready, { 'idempotency-key': 'big', 'content-type': 'application/json' }) }, (res) => {
        answered = true;
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      // The server refuses while we are still writing, so a write may fail (EPIPE) around the time
      // its answer arrives: only an error with no answer soon after is a failure.
      req.on('error', (error) => {
        if (!answered) setTimeout(() => reject(error), 2_000);
      });
      // Streamed (chunked): no Content-Length to refuse upfront, so the limit applies while reading.
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = (): void => {
        while (sent < 1_200_000) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    expect(status.status).toBe(400);
    expect(JSON.parse(status.body)).toMatchObject({ code: 'validation_error', message: 'The request body is too large.' });
    const after = await fetch(`${ready.url}/v1/users`, { headers: headers(ready) });
    expect(after.status).toBe(200);
  });

  it('a declared Content-Length over the limit is refused before reading', async () => {
    const { ready } = await serve();
    const res = await fetch(`${ready.url}/v1/users`, {
      method: 'POST',
      headers: headers(ready, { 'idempotency-key': 'big2', 'content-type': 'application/json' }),
      body: 'x'.repeat(1_000_001),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('The request body is too large.');
  });

  it('garbage on the socket does not crash the server', async () => {
    const { child, ready } = await serve();
    const { port } = new URL(ready.url);
    const cases = [
      ['NOT HTTP AT ALL\r\n\r\n', 400],
      ['GET /v1/users HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400],
      // A method `Request` refuses is an undeclared method like any other: no key, 401.
      ['TRACE /v1/users HTTP/1.1\r\nHost: x\r\n\r\n', 401],
    ] as const;
    for (const [garbage, status] of cases) {
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(garbage));
        let data = '';
        socket.setEncoding('utf8').on('data', (c: string) => (data += c));
        socket.on('close', () => resolve(data));
        socket.on('error', () => resolve(data));
      });
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status}`));
      // In the envelope, with its request id.
      expect(answer).toMatch(/\r\nx-request-id: req_\w+\r\n/i);
      expect(answer).toMatch(/"request_id":"req_\w+"/);
    }
    const res = await fetch(`${ready.url}/v1/users`, { headers: headers(ready) });
    expect(res.status).toBe(200);
    expect(child.process.exitCode).toBeNull();
  });
});

describe('graceful shutdown', () => {
  async function stopWith(child: Child, signal: NodeJS.Signals): Promise<number | string> {
    child.process.kill(signal);
    return exitCode(child);
  }

  it.each(['SIGTERM', 'SIGINT'] as const)('%s closes cleanly with exit code 0', async (signal) => {
    const { child, ready } = await serve();
    await (await fetch(`${ready.url}/v1/users`, { headers: headers(ready) })).arrayBuffer();
    expect(await stopWith(child, signal)).toBe(0);
    expect(child.stdout().split('\n')).toHaveLength(2);
    expect(child.stderr()).toContain('stopped');
  });

  it('finishes a request in flight, then refuses new connections', async () => {
    const { child, ready } = await serve();
    const body = JSON.stringify({ external_id: 'slow', name: 'Slow', document_type: 'cpf', document_number: CPF });
    const answer = new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      // Expect: 100-continue makes the server say when it has taken the request (Node answers
      // 100 and starts the listener); the body is sent only after the signal.
      const req = http.request(
        `${ready.url}/v1/users`,
        { method: 'POST', headers: headers(ready, { 'idempotency-key': 'slow', 'content-type': 'application/json', expect: '100-continue' }) },
        (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }));
        },
      );
      req.on('error', reject);
      req.once('continue', () => {
        child.process.kill('SIGTERM');
        void waitFor(child, () => (child.stderr().includes('SIGTERM') ? true : undefined), 'the shutdown log').then(() => req.end(body), reject);
      });
      req.flushHeaders();
    });
    const result = await answer;
    expect(result.status).toBe(201);
    expect(result.connection).toBe('close');
    expect(await exitCode(child)).toBe(0);
    await expect(fetch(`${ready.url}/v1/users`, { headers: headers(ready) })).rejects.toThrow();
  });
});

describe('injected network faults over HTTP', () => {
  it('drop the connection: the caller sees a network error, and the server lives on', async () => {
    const { ready } = await serve();
    const plan = await fetch(`${ready.url}/v1/test_helpers/faults`, {
      method: 'POST',
      headers: headers(ready, { 'content-type': 'application/json' }),
      body: JSON.stringify({ match: 'POST /v1/users', nth: 1, fault: { type: 'network' } }),
    });
    expect(plan.status).toBe(201);
    const lost = await createUser(ready, 1).catch((e: unknown) => e);
    expect(lost).toBeInstanceOf(TypeError);
    // Nothing ran on a network fault: the same call now creates the user.
    expect((await createUser(ready, 1)).status).toBe(201);
  });
});
