import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constructEvent, isWebhookVerificationError, signPayload, type WebhookEvent } from '../../src/webhooks/index.js';
import { EVENT_ID, SECRET, conversionEvent } from './helpers.js';

// The recipes of docs/webhooks.md, run for real: a Node http server and a fetch-style handler.

const body = JSON.stringify(conversionEvent());

describe('Node http recipe', () => {
  const received: WebhookEvent[] = [];
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        received.push(await constructEvent(Buffer.concat(chunks), req.headers, SECRET));
        res.writeHead(200).end();
      } catch (error) {
        res.writeHead(isWebhookVerificationError(error) ? 400 : 500).end(isWebhookVerificationError(error) ? error.reason : '');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('accepts a signed delivery and refuses a tampered one with the reason', async () => {
    const headers = { 'content-type': 'application/json', 'X-Service-Signature': await signPayload(body, SECRET), 'X-Service-Event-Id': EVENT_ID };
    const ok = await fetch(url, { method: 'POST', body, headers });
    expect(ok.status).toBe(200);
    expect(received.map((e) => e.id)).toEqual([EVENT_ID]);

    const tampered = await fetch(url, { method: 'POST', body: body.replace('1000.00', '1.00'), headers });
    expect(tampered.status).toBe(400);
    expect(await tampered.text()).toBe('no_matching_signature');
    const unsigned = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(await unsigned.text()).toBe('missing_header');
    expect(received).toHaveLength(1);
  });
});

describe('fetch-handler recipe (Next.js route handlers, Hono c.req.raw, Workers)', () => {
  // Processed event ids: in a real receiver, recorded with the side effect (createWebhookHandler does it).
  const processed = new Set<string>();
  async function POST(request: Request): Promise<Response> {
    try {
      const event = await constructEvent(request, SECRET);
      if (processed.has(event.id)) return new Response(null, { status: 200 });
      processed.add(event.id);
      return Response.json({ received: event.type });
    } catch (error) {
      if (isWebhookVerificationError(error)) return new Response(error.reason, { status: 400 });
      throw error;
    }
  }

  it('verifies from the Request, acknowledges a duplicate, refuses a bad one', async () => {
    const signature = await signPayload(body, SECRET);
    const make = (sig: string) => new Request('https://receiver.example/api/webhooks', { method: 'POST', body, headers: { 'X-Service-Signature': sig, 'X-Service-Event-Id': EVENT_ID } });
    const first = await POST(make(signature));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: 'conversion.completed' });
    const again = await POST(make(signature));
    expect(again.status).toBe(200);
    expect(await again.text()).toBe('');
    const bad = await POST(make(await signPayload(body, 'whsec_someone_else')));
    expect(bad.status).toBe(400);
  });
});
