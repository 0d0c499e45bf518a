/**
 * Issue 21: the server's webhook transport keeps its open sockets under its caps (its own
 * agents: `maxSockets` per origin, `maxTotalSockets` in all, idle keep-alive ones included),
 * a sandbox sending through it never has more attempts in flight than its caps, and the
 * server's stop closes its sandbox. The
 * receivers count their open connections; they answer only once the cap is reached, so a
 * transport over its cap shows more than the cap open at once and one under it never gets there.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { createSandbox, isSandboxClosedError } from '../../../src/sandbox/index.js';
import { startServer } from '../../../src/server/http/start.js';
import { createHttpsTransport } from '../../../src/server/egress/transport.js';
import { cpf } from '../../support/fixtures.js';

const servers: http.Server[] = [];
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

/** Open connections of a set of receivers: now, and the most at once. */
class Connections {
  open = 0;
  most = 0;
  requests = 0;
}

/**
 * A loopback receiver that holds every request until `batch` of them are waiting (counted over
 * every receiver sharing `shared`), then answers them all.
 */
async function receiver(own: Connections, shared: Connections, batch: number, held: http.ServerResponse[]): Promise<string> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      own.requests++;
      shared.requests++;
      held.push(res);
      if (held.length >= batch) for (const r of held.splice(0)) r.writeHead(200).end('ok');
    });
  });
  server.on('connection', (socket) => {
    for (const c of [own, shared]) {
      c.open++;
      c.most = Math.max(c.most, c.open);
    }
    socket.on('close', () => {
      own.open--;
      shared.open--;
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
}

const post = { headers: { 'content-type': 'application/json' }, body: '{}' };

describe('the transport’s sockets', () => {
  it('never opens more than maxSockets to one receiver, whatever is asked at once', async () => {
    const counts = new Connections();
    const url = await receiver(counts, new Connections(), 3, []);
    const transport = createHttpsTransport({ maxSockets: 3, maxTotalSockets: 10 });
    try {
      const replies = await Promise.all(Array.from({ length: 30 }, () => transport({ url, ...post })));
      expect(replies.every((r) => r.status === 200)).toBe(true);
      expect(counts.requests).toBe(30);
      expect(counts.most).toBe(3);
    } finally {
      transport.close();
    }
  });

  it('never opens more than maxTotalSockets over several receivers, idle kept-alive ones included', async () => {
    const all = new Connections();
    const held: http.ServerResponse[] = [];
    const urls = await Promise.all(Array.from({ length: 4 }, () => receiver(new Connections(), all, 4, held)));
    const transport = createHttpsTransport({ maxSockets: 3, maxTotalSockets: 4 });
    try {
      const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => transport({ url: urls[i % 4] as string, ...post })));
      expect(replies.every((r) => r.status === 200)).toBe(true);
      expect(all.requests).toBe(40);
      expect(all.most).toBeLessThanOrEqual(4);
    } finally {
      transport.close();
    }
  });
});

describe('a sandbox delivering through the transport', () => {
  it('holds at most its caps of attempts, and so of sockets, open to hanging receivers', async () => {
    const perEndpoint = 2;
    const total = 5;
    const all = new Connections();
    const own = Array.from({ length: 4 }, () => new Connections());
    // Receivers that never answer by themselves (a batch larger than any cap lets through).
    const held: http.ServerResponse[] = [];
    const urls = await Promise.all(own.map((c) => receiver(c, all, 1_000, held)));
    const transport = createHttpsTransport({ maxTotalSockets: total, timeoutMs: 60_000 });
    const sandbox = createSandbox({ seed: 'sockets', now: '2026-05-04T10:00:00Z', webhookTransport: transport, webhooks: { concurrency: { perEndpoint, perTenant: 32, total } } });
    try {
      const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
      for (const url of urls) await client.webhookEndpoints.create({ url, event_types: ['*'] });
      for (let n = 1; n <= 10; n++) await client.users.create({ external_id: `s-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
      // 40 deliveries due; the caps let 3 go (at most 2 per endpoint): a lone tenant holds its
      // share of the 5, 2, and one more while a share stays free for a tenant with nothing in
      // flight (issue 35).
      const alone = 3;
      await new Promise<void>((resolve, reject) => {
        const check = setInterval(() => {
          if (all.requests >= alone) {
            clearInterval(check);
            resolve();
          }
        }, 5);
        setTimeout(() => (clearInterval(check), reject(new Error(`${all.requests} requests arrived`))), 10_000);
      });
      expect(all.requests).toBe(alone);
      expect(all.most).toBeLessThanOrEqual(total);
      for (const c of own) expect(c.most).toBeLessThanOrEqual(perEndpoint);
      expect(sandbox.webhooks.pending()).toHaveLength(40);
    } finally {
      // Close aborts the attempts in flight: their sockets are destroyed, nothing is recorded.
      await sandbox.close();
      transport.close();
    }
    expect(sandbox.webhooks.pending().every((p) => p.attemptCount === 0)).toBe(true);
  });
});

describe('the server’s stop', () => {
  it('closes its sandbox: the attempt in flight to a hanging receiver is aborted, nothing is recorded, later calls are refused', async () => {
    const counts = new Connections();
    const held: http.ServerResponse[] = [];
    const url = await receiver(counts, new Connections(), 1_000, held);
    const server = await startServer(
      { port: 0, host: '127.0.0.1', sandbox: { seed: 21 } },
      () => undefined,
    );
    const call = (method: string, path: string, body: unknown): Promise<Response> =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `${method}${path}${JSON.stringify(body)}` },
        body: JSON.stringify(body),
      });
    expect((await call('POST', '/v1/webhook_endpoints', { url, event_types: ['*'] })).status).toBe(201);
    expect((await call('POST', '/v1/users', { external_id: 'stop', name: 'Stop', document_type: 'cpf', document_number: cpf(1) })).status).toBe(201);
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (counts.requests >= 1) {
          clearInterval(check);
          resolve();
        }
      }, 5);
      setTimeout(() => (clearInterval(check), reject(new Error('the delivery never arrived'))), 10_000);
    });
    expect(counts.open).toBe(1);
    await server.close();
    // The abort destroyed the connection; the delivery stays pending with no attempt recorded.
    await new Promise<void>((resolve) => {
      const check = setInterval(() => counts.open === 0 && (clearInterval(check), resolve()), 5);
    });
    expect(server.sandbox.webhooks.pending()).toMatchObject([{ attemptCount: 0 }]);
    const refused = await server.sandbox.fetch('/v1/users').catch((error: unknown) => error);
    expect(isSandboxClosedError((refused as TypeError).cause)).toBe(true);
  });
});
