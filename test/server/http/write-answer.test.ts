/**
 * The listener's one writer of answers (issue 34): since it hands Node's `writeHead` one flat list
 * of names and values instead of a merged object, a name given twice would go out twice. These
 * pin what the merged object gave: the answer's own header wins over an extra one of the same
 * name, `content-length` is the body's byte length and `connection: close` is sent once, each
 * line once; and the body limit of the tenant documents' path, now told without splitting.
 */
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer } from '../../../src/sandbox/http/call.js';
import { MAX_BODY } from '../../../src/sandbox/http/stages.js';
import { type WriteOptions, bodyLimitOf, writeAnswer } from '../../../src/server/http/listener.js';

// What the next request is answered with.
let next: { answer: Answer; options: WriteOptions } = { answer: { status: 200, body: null, headers: {} }, options: {} };
const server = http.createServer((_req, res) => writeAnswer(res, next.answer, next.options));
let port = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The answer's raw header lines (lower-cased names) and body, as they went on the wire. */
function exchange(answer: Answer, options: WriteOptions): Promise<{ lines: Array<[string, string]>; body: string }> {
  next = { answer, options };
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end('GET /v1/users HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n'));
    let text = '';
    socket.setEncoding('utf8').on('data', (c: string) => (text += c));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const lines = head
        .split('\r\n')
        .slice(1)
        .map((line): [string, string] => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]);
      resolve({ lines, body });
    });
  });
}

const named = (lines: Array<[string, string]>, name: string): string[] => lines.filter(([n]) => n === name).map(([, v]) => v);

describe('writeAnswer', () => {
  it("sends each header once, the answer's own over an extra one, content-length in bytes", async () => {
    const body = '{"name":"Conceição"}';
    const { lines, body: sent } = await exchange(
      { status: 200, body, headers: { vary: 'Origin, Access-Control-Request-Headers', 'x-request-id': 'req_1', 'content-length': '1' } },
      { extra: { 'access-control-allow-origin': 'http://localhost:3000', vary: 'Origin' } },
    );
    expect(named(lines, 'vary')).toEqual(['Origin, Access-Control-Request-Headers']);
    expect(named(lines, 'access-control-allow-origin')).toEqual(['http://localhost:3000']);
    expect(named(lines, 'x-request-id')).toEqual(['req_1']);
    expect(named(lines, 'content-length')).toEqual([String(Buffer.byteLength(body))]);
    expect(sent).toBe(body);
  });

  it('a closing answer says connection: close once, whatever the answer carried', async () => {
    const { lines } = await exchange({ status: 400, body: '{}', headers: { connection: 'keep-alive' } }, { close: true });
    expect(named(lines, 'connection')).toEqual(['close']);
  });

  it("an answer's request id given apart goes out where the app's merged copy put it, the headers' own first", async () => {
    const extra = { 'access-control-allow-origin': 'http://localhost:3000', vary: 'Origin' };
    const cases: Array<[string, Record<string, string>, Record<string, string> | null]> = [
      ['a read', { 'content-type': 'application/json' }, null],
      ['a replay (its own request id, last)', { 'content-type': 'application/json', 'x-request-id': 'req_first', 'idempotent-replayed': 'true' }, null],
      ['with CORS', { 'content-type': 'application/json', vary: 'Accept' }, extra],
      ['a replay with CORS', { 'idempotent-replayed': 'true', 'x-request-id': 'req_first' }, extra],
      ['no headers', {}, null],
    ];
    for (const [what, headers, more] of cases) {
      const merged = await exchange({ status: 200, body: '{"a":1}', headers: { 'x-request-id': 'req_new', ...headers } }, { extra: more });
      const apart = await exchange({ status: 200, body: '{"a":1}', headers }, { extra: more, requestId: 'req_new' });
      expect(apart.lines.filter(([n]) => n !== 'date'), what).toEqual(merged.lines.filter(([n]) => n !== 'date'));
      expect(named(apart.lines, 'x-request-id'), what).toEqual([headers['x-request-id'] ?? 'req_new']);
    }
  });

  it('HEAD: the headers of the answer, content-length included, no body', async () => {
    const { lines, body } = await exchange({ status: 200, body: '{"a":1}', headers: {} }, { head: true });
    expect(named(lines, 'content-length')).toEqual(['7']);
    expect(body).toBe('');
  });
});

describe('bodyLimitOf', () => {
  it('gives the tenant documents their larger limit on their path alone, query or not', () => {
    const snapshot = bodyLimitOf('/v1/test_helpers/tenants');
    expect(snapshot).toBeGreaterThan(MAX_BODY);
    expect(bodyLimitOf('/v1/test_helpers/tenants?fork=1')).toBe(snapshot);
    for (const other of ['/v1/test_helpers/tenantsx', '/v1/test_helpers/tenants/t_1', '/v1/users', '', undefined]) expect(bodyLimitOf(other)).toBe(MAX_BODY);
  });
});
