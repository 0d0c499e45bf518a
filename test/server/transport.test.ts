/**
 * The webhook transport of the server: real HTTPS POSTs to a local receiver.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHttpsTransport } from '../../src/server/transport.js';
import { generateSelfSigned } from '../../src/server/tls.js';

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let tls: { cert: string; key: string };
const servers: http.Server[] = [];

beforeAll(async () => {
  tls = await generateSelfSigned('localhost');
});

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** A receiver that records what it gets and answers with `reply`. */
async function receiver(secure: boolean, reply: (req: Received, res: http.ServerResponse) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body };
      received.push(r);
      reply(r, res);
    });
  };
  const server = secure ? https.createServer(tls, listener) : http.createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}/hooks?x=1`, received };
}

const DELIVERY = {
  headers: { 'x-service-event-id': 'evt_1', 'x-service-signature': 't=1,v1=abc' },
  body: JSON.stringify({ id: 'evt_1', type: 'user.created', created_at: '2026-01-01T00:00:00.000Z', data: { object: { id: 'u1' } } }),
};

describe('createHttpsTransport', () => {
  it('POSTs the exact body and headers over HTTPS and returns the status and body', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.writeHead(202, { 'content-type': 'text/plain' }).end('thanks'));
    const transport = createHttpsTransport({ insecure: true });
    const reply = await transport({ url, ...DELIVERY });
    expect(reply).toEqual({ status: 202, body: 'thanks' });
    expect(received).toHaveLength(1);
    const [r] = received as [Received];
    expect(r.method).toBe('POST');
    expect(r.url).toBe('/hooks?x=1');
    expect(r.body).toBe(DELIVERY.body);
    expect(r.headers['x-service-event-id']).toBe('evt_1');
    expect(r.headers['x-service-signature']).toBe('t=1,v1=abc');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(DELIVERY.body)));
  });

  it('a 5xx is an answer, not a transport error', async () => {
    const { url } = await receiver(true, (_r, res) => res.writeHead(503).end('down'));
    await expect(createHttpsTransport({ insecure: true })({ url, ...DELIVERY })).resolves.toEqual({ status: 503, body: 'down' });
  });

  it('refuses a self-signed receiver certificate unless insecure', async () => {
    const { url, received } = await receiver(true, (_r, res) => res.end('ok'));
    await expect(createHttpsTransport()({ url, ...DELIVERY })).rejects.toThrow(/Webhook attempt failed: .*SELF_SIGNED/);
    expect(received).toHaveLength(0);
  });

  it('rejects when the receiver does not answer in time', async () => {
    const { url } = await receiver(true, () => undefined /* never answers */);
    await expect(createHttpsTransport({ insecure: true, timeoutMs: 300 })({ url, ...DELIVERY })).rejects.toThrow(/timed out after 300 ms/);
  });

  it('rejects a refused connection', async () => {
    const { url } = await receiver(true, (_r, res) => res.end());
    const closed = servers.pop() as http.Server;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(createHttpsTransport({ insecure: true })({ url, ...DELIVERY })).rejects.toThrow(/ECONNREFUSED/);
  });

  it('keeps at most maxResponseBytes of the answer', async () => {
    const { url } = await receiver(true, (_r, res) => res.end('x'.repeat(10_000)));
    const reply = await createHttpsTransport({ insecure: true, maxResponseBytes: 100 })({ url, ...DELIVERY });
    expect(reply.body).toBe('x'.repeat(100));
  });

  it('plain http only to loopback receivers', async () => {
    const { url, received } = await receiver(false, (_r, res) => res.end('plain'));
    await expect(createHttpsTransport()({ url, ...DELIVERY })).resolves.toEqual({ status: 200, body: 'plain' });
    expect(received).toHaveLength(1);
    await expect(createHttpsTransport()({ url: 'http://example.com/hooks', ...DELIVERY })).rejects.toThrow(/https only/);
    await expect(createHttpsTransport()({ url: 'ftp://127.0.0.1/hooks', ...DELIVERY })).rejects.toThrow(/https only/);
    await expect(createHttpsTransport()({ url: 'not a url', ...DELIVERY })).rejects.toThrow(/Invalid webhook URL/);
  });

  it('errors never carry the signature header', async () => {
    const error = await createHttpsTransport({ insecure: true })({ url: 'https://127.0.0.1:1/x', ...DELIVERY }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).not.toContain('v1=abc');
  });
});
