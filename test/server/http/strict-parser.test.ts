/**
 * The server reads request headers behind Node's strict HTTP parser (server/http/start.ts
 * `insecureHTTPParser: false`), and its listener does not check them again (listener.ts
 * `checkedHeadersOf`): that is only right if the parser refuses every header name and value
 * `Headers` would (sandbox/http/call.ts HEADER_NAME, HEADER_VALUE), byte by byte, whatever
 * `--insecure-http-parser` says.
 */
import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEADER_NAME, HEADER_VALUE } from '../../../src/sandbox/http/call.js';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';
import { serve, stopAll } from '../helpers.js';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ port: 0, host: '127.0.0.1', sandbox: { seed: 7 } }, () => {});
});
afterAll(() => server.close());
afterEach(stopAll);

/** Sends raw bytes on a new connection and resolves with the answer's status. */
function statusOf(url: string, head: string): Promise<number> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(Buffer.from(head, 'latin1')));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
  });
}

const request = (lines: string[]): string => `GET /v1/users HTTP/1.1\r\nhost: 127.0.0.1\r\n${lines.join('\r\n')}\r\nconnection: close\r\n\r\n`;

describe('headers behind the strict parser', () => {
  it('refuses (400) exactly the header values Headers refuses, byte by byte', async () => {
    for (let c = 0; c < 256; c++) {
      if (c === 10 || c === 13) continue; // a line break ends the line: another request, not a value
      const value = `a${String.fromCharCode(c)}b`;
      const status = await statusOf(server.url, request([`x-probe: ${value}`]));
      expect(status === 400, `byte ${c}: answered ${status}`).toBe(!HEADER_VALUE.test(value));
      // What passes reaches the API: without a key, 401.
      if (HEADER_VALUE.test(value)) expect(status).toBe(401);
    }
  });

  it('refuses (400) exactly the header names Headers refuses, byte by byte', async () => {
    for (let c = 0; c < 256; c++) {
      if (c === 10 || c === 13 || c === 58) continue; // a line break, or the colon that ends a name
      const name = `x${String.fromCharCode(c)}probe`;
      const status = await statusOf(server.url, request([`${name}: 1`]));
      expect(status === 400, `byte ${c}: answered ${status}`).toBe(!HEADER_NAME.test(name));
    }
  });

  it('reads names in any case, trims values and joins a repeated name as Headers does', async () => {
    const key = server.sandbox.apiKey;
    expect(await statusOf(server.url, request([`AUTHORIZATION:   Bearer ${key}  `]))).toBe(200);
    // Two Authorization lines join into one value that is no key: refused, not the first one taken.
    expect(await statusOf(server.url, request([`authorization: Bearer ${key}`, `Authorization: Bearer ${key}`]))).toBe(401);
  });

  it('stays strict when NODE_OPTIONS asks for the lenient parser', async () => {
    const { ready } = await serve([], { NODE_OPTIONS: '--insecure-http-parser' });
    expect(await statusOf(ready.url, request(['x-probe: a\u0001b']))).toBe(400);
    expect(await statusOf(ready.url, request([`authorization: Bearer ${ready.api_key}`]))).toBe(200);
  });
});
