/**
 * Webhook deliveries leave the real binary as HTTPS POSTs to a local receiver, signed so that
 * `constructEvent` verifies them. Loopback receivers need no flag in the sandbox environment;
 * production keeps https only and treats loopback as internal unless `--webhook-allow` names it.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { constructEvent } from '../../../src/webhooks/index.js';
import { type Ready, serve, stopAll, waitFor } from '../helpers.js';
import { CPF } from '../../support/fixtures.js';
import { generateSelfSigned } from '../../../src/server/http/tls.js';

interface Received {
  body: string;
  headers: Record<string, string>;
}

let tls: { cert: string; key: string };
const receivers: http.Server[] = [];

beforeAll(async () => {
  tls = await generateSelfSigned('localhost');
});

afterEach(() => {
  stopAll();
  for (const r of receivers.splice(0)) {
    r.closeAllConnections();
    r.close();
  }
});

async function receiver(secure = true): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push({ body, headers: req.headers as Record<string, string> });
      res.end('ok');
    });
  };
  const server = secure ? https.createServer(tls, listener) : http.createServer(listener);
  receivers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

async function api<T>(ready: Ready, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${ready.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json', 'idempotency-key': `${method}-${path}-${Math.random()}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  expect(res.status, `${method} ${path}`).toBeLessThan(300);
  return (await res.json()) as T;
}

interface Delivery {
  status: string;
  attempt_count: number;
  response_status: number | null;
  last_error: string | null;
}

/** Polls the endpoint's deliveries until `done` holds for one of them (bounded). */
async function deliveries(ready: Ready, endpointId: string, done: (d: Delivery) => boolean): Promise<Delivery[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const page = await api<{ data: Delivery[] }>(ready, 'GET', `/v1/webhook_endpoints/${endpointId}/deliveries`);
    if (page.data.some(done)) return page.data;
    if (Date.now() > deadline) throw new Error(`No delivery matched: ${JSON.stringify(page.data)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook deliveries from the server', () => {
  it('a self-signed receiver on loopback gets real HTTPS POSTs with no flag, verified by constructEvent', async () => {
    const { url, received } = await receiver();
    const { child, ready } = await serve();
    const endpoint = await api<{ id: string; secret: string }>(ready, 'POST', '/v1/webhook_endpoints', { url, event_types: ['*'] });
    const user = await api<{ id: string }>(ready, 'POST', '/v1/users', { external_id: 'wh-1', name: 'Ana', document_type: 'cpf', document_number: CPF });
    const list = await deliveries(ready, endpoint.id, (d) => d.status === 'succeeded');
    expect(list.find((d) => d.status === 'succeeded')?.response_status).toBe(200);
    expect(received.length).toBeGreaterThan(0);
    const first = received[0] as Received;
    const event = await constructEvent(first.body, first.headers, endpoint.secret);
    expect((event.data.object as { id?: string }).id).toBe(user.id);
    expect(first.headers['x-service-event-id']).toBe(event.id);
    // The secret never reaches the logs.
    await waitFor(child, () => (child.stderr().includes('POST /v1/users 201') ? true : undefined), 'the log line');
    expect(child.stderr()).not.toContain(endpoint.secret);
  });

  it('an http:// loopback endpoint is accepted and delivered to', async () => {
    const { url, received } = await receiver(false);
    const { ready } = await serve();
    const endpoint = await api<{ id: string; url: string }>(ready, 'POST', '/v1/webhook_endpoints', { url, event_types: ['*'] });
    expect(endpoint.url).toBe(url);
    await api(ready, 'POST', '/v1/users', { external_id: 'wh-3', name: 'Caio', document_type: 'cpf', document_number: CPF });
    await deliveries(ready, endpoint.id, (d) => d.status === 'succeeded');
    expect(received.length).toBeGreaterThan(0);
  });

  it('production: an http:// endpoint is refused at registration, a loopback receiver at delivery (recorded, never reached)', async () => {
    const { url, received } = await receiver();
    const { ready } = await serve(['--environment', 'production']);
    const refused = await fetch(`${ready.url}/v1/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json', 'idempotency-key': 'http-endpoint' },
      body: JSON.stringify({ url: url.replace('https:', 'http:'), event_types: ['*'] }),
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ code: 'validation_error', details: { issues: [{ path: 'url', message: 'Expected an https:// URL' }] } });
    const endpoint = await api<{ id: string }>(ready, 'POST', '/v1/webhook_endpoints', { url, event_types: ['*'] });
    await api(ready, 'POST', '/v1/users', { external_id: 'wh-2', name: 'Bia', document_type: 'cpf', document_number: CPF });
    const list = await deliveries(ready, endpoint.id, (d) => d.attempt_count > 0);
    const failed = list.find((d) => d.attempt_count > 0) as Delivery;
    expect(failed.status).not.toBe('succeeded');
    expect(failed.response_status).toBeNull();
    expect(failed.last_error).toMatch(/Refused to deliver to 127\.0\.0\.1 \(loopback address\) in production: allow it with --webhook-allow/);
    expect(received).toHaveLength(0);
  });

  it('production with --webhook-allow 127.0.0.1 --insecure-webhooks: delivered', async () => {
    const { url, received } = await receiver();
    const { ready } = await serve(['--environment', 'production', '--webhook-allow', '127.0.0.1', '--insecure-webhooks']);
    const endpoint = await api<{ id: string }>(ready, 'POST', '/v1/webhook_endpoints', { url, event_types: ['*'] });
    await api(ready, 'POST', '/v1/users', { external_id: 'wh-4', name: 'Davi', document_type: 'cpf', document_number: CPF });
    await deliveries(ready, endpoint.id, (d) => d.status === 'succeeded');
    expect(received.length).toBeGreaterThan(0);
  });
});
