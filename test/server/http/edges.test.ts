/**
 * The server's edges (issue 17): what Node answers by itself gets the envelope, the documented
 * slow-client limits bite, invalid UTF-8 is refused, one rule for every method, CORS headers.
 * The server runs in process on loopback; slow clients are bounded and use small limits.
 */
import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { type RunningServer, type ServerOptions, startServer } from '../../../src/server/http/start.js';
import { CPF } from '../../support/fixtures.js';

const running: RunningServer[] = [];

afterEach(async () => {
  for (const server of running.splice(0)) {
    server.forceClose();
    await server.close();
  }
});

async function start(extra: Partial<ServerOptions> = {}): Promise<{ server: RunningServer; logs: string[]; port: number }> {
  const logs: string[] = [];
  const options: ServerOptions = {
    port: 0,
    host: '127.0.0.1',
    sandbox: { seed: 7 },
    ...extra,
  };
  const server = await startServer(options, (line) => logs.push(line));
  running.push(server);
  return { server, logs, port: Number(new URL(server.url).port) };
}

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** The connection was closed by the server. */
  closed: boolean;
}

function parseRaw(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n'), closed: true };
}

/**
 * Writes `chunks` to a raw connection, one every `gapMs`, and resolves with what the server
 * answered once it closes the connection, and how many chunks had been sent by then.
 */
function rawExchange(port: number, chunks: ReadonlyArray<string | Buffer>, gapMs = 0): Promise<{ answer: RawAnswer; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`The server did not close the connection; received: ${JSON.stringify(received)}`));
    }, 15_000);
    const next = (): void => {
      if (sent >= chunks.length || socket.destroyed) return;
      socket.write(chunks[sent] as string | Buffer);
      sent++;
      timer = setTimeout(next, gapMs);
    };
    socket.on('connect', next);
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(deadline);
      clearTimeout(timer);
      resolve({ answer: parseRaw(received), sent });
    });
  });
}

function expectEnvelope(answer: RawAnswer, status: number, message: RegExp): void {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toBe('application/json');
  expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
  const body = JSON.parse(answer.body) as { code: string; message: string; request_id: string };
  expect(body).toEqual({ code: 'validation_error', message: expect.stringMatching(message), request_id: answer.headers['x-request-id'] });
  expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
}

/** One request with node:http (fetch refuses TRACE and CONNECT). */
function request(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: text, closed: false }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('what Node refuses by itself is answered in the envelope', () => {
  it('a method token HTTP does not define (FOO): 400 with x-request-id, logged', async () => {
    const { port, logs } = await start();
    const { answer } = await rawExchange(port, ['FOO /v1/users HTTP/1.1\r\nHost: x\r\n\r\n']);
    expectEnvelope(answer, 400, /method/);
    expect(logs.some((line) => line.startsWith('- - 400') && line.endsWith(answer.headers['x-request-id'] as string))).toBe(true);
  });

  it('oversized headers: 431', async () => {
    const { port } = await start();
    const { answer } = await rawExchange(port, [`GET /v1/users HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectEnvelope(answer, 431, /headers are too large/);
  });

  it('bytes that are not HTTP: 400', async () => {
    const { port } = await start();
    const { answer } = await rawExchange(port, [Buffer.from([0x16, 0x03, 0x01, 0x00, 0xff, 0x0d, 0x0a, 0x0d, 0x0a])]);
    expectEnvelope(answer, 400, /not valid HTTP/);
    const { answer: badHeader } = await rawExchange(port, ['GET /v1/users HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n']);
    expectEnvelope(badHeader, 400, /not valid HTTP \(.+\)/);
  });
});

/**
 * A client that writes its whole request before reading (as `sendall` then `recv` does): `head`,
 * then `total` bytes of body as fast as the connection takes them (chunked framing when
 * `chunked`). Resolves with the answer read afterwards, how the connection ended (`end`: closed
 * cleanly; `reset`: ECONNRESET, which loses an answer not read yet) and the body bytes written.
 */
function upload(port: number, head: string, total: number, chunked: boolean, readWhileSending = false): Promise<{ answer: RawAnswer; ended: 'end' | 'reset'; sent: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    if (!readWhileSending) socket.pause(); // nothing is read until the request is written
    const piece = Buffer.alloc(64 * 1024, 'a');
    let received = '';
    let sent = 0;
    let ended: 'end' | 'reset' = 'end';
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`The server did not close the connection; received: ${JSON.stringify(received.slice(0, 300))}`));
    }, 25_000);
    const pump = (): void => {
      while (sent < total && !socket.destroyed) {
        const n = Math.min(piece.length, total - sent);
        const data = chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')]) : piece.subarray(0, n);
        sent += n;
        const last = sent >= total;
        const ok = socket.write(last && chunked ? Buffer.concat([data, Buffer.from('0\r\n\r\n')]) : data, last ? () => socket.resume() : undefined);
        if (!ok && !last) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') ended = 'reset';
      socket.resume();
    });
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve({ answer: parseRaw(received), ended, sent });
    });
  });
}

describe('a body over the limit is answered, then drained, not reset (issue 27)', () => {
  const TEN_MB = 10 * 1024 * 1024;
  const head = (framing: string): string =>
    ['POST /v1/users HTTP/1.1', 'Host: x', 'Authorization: Bearer sk_test_00000000000000000000000000000000', 'Content-Type: application/json', 'Idempotency-Key: big', framing, '', ''].join('\r\n');

  it.each([
    ['Content-Length', `Content-Length: ${TEN_MB}`, false],
    ['chunked', 'Transfer-Encoding: chunked', true],
  ] as const)('a raw 10 MB upload with %s reads its envelope: 400, the limit named, a clean close', async (_name, framing, chunked) => {
    const { port, logs } = await start();
    const { answer, ended } = await upload(port, head(framing), TEN_MB, chunked);
    expect(ended).toBe('end');
    expect(answer.status).toBe(400);
    expect(answer.headers['connection']).toBe('close');
    expect(answer.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    expect(JSON.parse(answer.body)).toEqual({
      code: 'validation_error',
      message: 'The request body is too large.',
      request_id: answer.headers['x-request-id'],
      details: { issues: [{ path: '', message: 'At most 1000000 bytes' }] },
    });
    expect(logs.some((line) => line.startsWith('POST /v1/users 400 ') && line.endsWith(answer.headers['x-request-id'] as string))).toBe(true);
  });

  it('a client that never stops sending is cut off once the drain is over its bound', async () => {
    const { port } = await start();
    // 200 MB declared and sent: more than the drain takes (64 MB). A client reading as it sends has the answer.
    const total = 200 * 1024 * 1024;
    const { answer, sent } = await upload(port, head(`Content-Length: ${total}`), total, false, true);
    expect(answer.status).toBe(400);
    expect(sent).toBeLessThan(total);
  }, 30_000);
});

describe('slow clients are cut at the configured limits', () => {
  it('headers trickled past the header limit: 408 in the envelope, before the client is done', async () => {
    const { port, logs } = await start({ timeouts: { headersMs: 300, requestMs: 600 } });
    // 60 header lines 50 ms apart: 3 s of headers, ten times the limit.
    const chunks = ['GET /v1/users HTTP/1.1\r\nHost: x\r\n', ...Array.from({ length: 60 }, (_, i) => `X-Slow-${i}: 1\r\n`), '\r\n'];
    const { answer, sent } = await rawExchange(port, chunks, 50);
    expectEnvelope(answer, 408, /headers within 0.3 s, the whole request within 0.6 s/);
    expect(sent).toBeLessThan(chunks.length);
    expect(logs.some((line) => / 408 .*req_/.test(line))).toBe(true);
  });

  it('a body trickled past the request limit: 408, nothing created', async () => {
    const { port, server } = await start({ timeouts: { headersMs: 300, requestMs: 600 } });
    const body = JSON.stringify({ external_id: 'slow', name: 'Slow Body', document_type: 'cpf', document_number: CPF });
    const head = [
      'POST /v1/users HTTP/1.1',
      'Host: x',
      `Authorization: Bearer ${server.sandbox.apiKey}`,
      'Content-Type: application/json',
      'Idempotency-Key: slow-body',
      `Content-Length: ${body.length}`,
      '',
      '',
    ].join('\r\n');
    // One byte every 50 ms: the body takes several seconds, the limit is 0.6 s.
    const { answer, sent } = await rawExchange(port, [head, ...body.split('')], 50);
    expectEnvelope(answer, 408, /not received in time/);
    expect(sent).toBeLessThan(body.length + 1);
    const list = await fetch(`${server.url}/v1/users`, { headers: { authorization: `Bearer ${server.sandbox.apiKey}` } });
    expect(((await list.json()) as { data: unknown[] }).data).toEqual([]);
  });
});

describe('invalid UTF-8 in a body is refused, not altered', () => {
  const bytes = (name: Buffer): Buffer =>
    Buffer.concat([Buffer.from('{"external_id":"utf8","name":"'), name, Buffer.from(`","document_type":"cpf","document_number":"${CPF}"}`)]);

  it('by the server: 400 invalid_json saying why, nothing stored', async () => {
    const { port, server } = await start();
    const auth = { authorization: `Bearer ${server.sandbox.apiKey}`, 'content-type': 'application/json' };
    const answer = await request(port, 'POST', '/v1/users', { ...auth, 'idempotency-key': 'bad-utf8' }, bytes(Buffer.from([0x41, 0xff, 0xfe, 0x42])));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/not valid UTF-8/) });
    expect(server.sandbox.events()).toEqual([]);
    // Valid multi-byte UTF-8 is kept as sent.
    const good = await request(port, 'POST', '/v1/users', { ...auth, 'idempotency-key': 'good-utf8' }, bytes(Buffer.from('João Ñandú', 'utf8')));
    expect(good.status).toBe(201);
    expect(JSON.parse(good.body)).toMatchObject({ name: 'João Ñandú' });
  });

  it('by sandbox.handle (what msw calls) and sandbox.fetch with bytes as well', async () => {
    const sandbox = createSandbox();
    const viaFetch = await sandbox.fetch('/v1/users', {
      method: 'POST',
      headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'f' },
      body: new Uint8Array(bytes(Buffer.from([0xed, 0xa0, 0x80]))),
    });
    expect(viaFetch.status).toBe(400);
    expect(await viaFetch.json()).toMatchObject({ code: 'invalid_json' });
    const response = await sandbox.handle(
      new Request('https://sandbox.pix-usdt.local/v1/users', {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'k' },
        body: new Uint8Array(bytes(Buffer.from([0xc3, 0x28]))),
      }),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'invalid_json', message: expect.stringMatching(/UTF-8/) });
  });
});

describe('one rule for every method', () => {
  it.each(['TRACE', 'PROPFIND', 'PUT'])('%s, which no route declares: 401 without a key, 404 not_found with one', async (method) => {
    const { port, server } = await start();
    const anonymous = await request(port, method, '/v1/users');
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.body)).toMatchObject({ code: 'authentication_required' });
    const answer = await request(port, method, '/v1/users', { authorization: `Bearer ${server.sandbox.apiKey}` });
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'not_found', message: `No route for ${method} /v1/users.` });
    expect(answer.headers['x-request-id']).toBe(JSON.parse(answer.body).request_id);
  });

  it('CONNECT, which Node hands to another event, is answered too: 400 for an authority target, else the rule', async () => {
    const { port, server } = await start();
    const { answer } = await rawExchange(port, ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n']);
    expectEnvelope(answer, 400, /absolute path/);
    const { answer: onPath } = await rawExchange(port, [`CONNECT /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.sandbox.apiKey}\r\n\r\n`]);
    expect(onPath.status).toBe(404);
    expect(JSON.parse(onPath.body)).toMatchObject({ code: 'not_found', message: 'No route for CONNECT /v1/users.' });
  });

  it('HEAD is GET without the body: same status and headers', async () => {
    const { port, server } = await start();
    const auth = { authorization: `Bearer ${server.sandbox.apiKey}` };
    const get = await request(port, 'GET', '/v1/users?limit=5', auth);
    const head = await request(port, 'HEAD', '/v1/users?limit=5', auth);
    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
    const missing = await request(port, 'HEAD', '/v1/users/00000000-0000-4000-8000-000000000000', auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toBe('');
    expect((await request(port, 'HEAD', '/v1/users')).status).toBe(401);
  });
});
