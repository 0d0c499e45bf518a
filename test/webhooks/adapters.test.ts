// The Node http, Express and Fastify adapters, each behind a real listening server with a JSON
// body parser in front: the delivery's raw bytes still verify (the body is formatted with spaces
// and non-ASCII text, so a parsed and re-serialized body would not), the app's other routes keep
// their parser, and a route that cannot get the raw bytes says so (at start-up where it can).
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
// @ts-expect-error Express 4 through an npm alias, without types of its own (its API here is Express 5's).
import express4 from 'express4';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type WebhookAnswer, createWebhookHandler, expressWebhook, fastifyWebhook, keepRawBody, toExpressHandler, toNodeHandler } from '../../src/webhooks/receiver/index.js';
import { SECRET } from './helpers.js';
import { eventBody, eventId, signedHeaders } from './receiver-helpers.js';

const closers: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function receiver() {
  const events: string[] = [];
  const answers: WebhookAnswer[] = [];
  const errors: unknown[] = [];
  const handler = createWebhookHandler({
    secret: SECRET,
    onEvent: (event) => void events.push(event.id),
    onAnswer: (a) => answers.push(a),
    onError: (e) => errors.push(e),
  });
  return { handler, events, answers, errors };
}

async function post(url: string, id = eventId()): Promise<{ status: number; body: Record<string, unknown>; id: string }> {
  const body = eventBody(id);
  const response = await fetch(url, { method: 'POST', body, headers: await signedHeaders(body, id) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, id };
}

async function forged(url: string): Promise<number> {
  const body = eventBody(eventId());
  return (await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-service-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` } })).status;
}

/** Another route of the app, which must still get its parsed JSON. */
async function otherRoute(url: string): Promise<unknown> {
  const response = await fetch(url, { method: 'POST', body: JSON.stringify({ hello: 'world' }), headers: { 'content-type': 'application/json' } });
  return response.json();
}

describe('toNodeHandler (node:http)', () => {
  it('reads the raw body from the stream; duplicates, forgeries and GETs are answered', async () => {
    const { handler, events } = receiver();
    const url = await listen(createServer(toNodeHandler(handler)));
    const first = await post(url);
    expect(first).toMatchObject({ status: 200, body: { received: true } });
    const again = await fetch(url, { method: 'POST', body: eventBody(first.id), headers: await signedHeaders(eventBody(first.id), first.id) });
    expect(await again.json()).toEqual({ received: true, duplicate: true });
    expect(await forged(url)).toBe(400);
    expect((await fetch(url)).status).toBe(405);
    expect(events).toEqual([first.id]);
  });

  it('takes the bytes a parser kept (req.rawBody), and answers 500 with the fix when a parser kept none', async () => {
    const { handler, events, errors } = receiver();
    const node = toNodeHandler(handler);
    let keep = true;
    // A parser in front, as frameworks on node:http have: reads the stream, leaves req.body parsed.
    const url = await listen(
      createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          const raw = Buffer.concat(chunks);
          Object.assign(req, { body: JSON.parse(raw.toString('utf8')) }, keep ? { rawBody: raw } : {});
          void node(req, res);
        });
      }),
    );
    expect((await post(url)).status).toBe(200);
    keep = false;
    const lost = await post(url);
    expect(lost).toMatchObject({ status: 500, body: { error: 'raw_body_unavailable', reason: 'parsed_body' } });
    expect(String(lost.body['message'])).toMatch(/raw body/);
    expect(events).toHaveLength(1);
    expect((errors[0] as { reason?: string }).reason).toBe('parsed_body');
  });
});

describe('Express 5', () => {
  it('expressWebhook gets the raw bytes although express.json() was mounted first; other routes keep their parser', async () => {
    const { handler, events } = receiver();
    const app = express();
    app.use(express.json());
    app.post('/api/echo', (req, res) => void res.json(req.body));
    expressWebhook(app, '/webhooks/pix-usdt', handler);
    const url = await listen(createServer(app));
    const first = await post(`${url}/webhooks/pix-usdt`);
    expect(first).toMatchObject({ status: 200, body: { received: true } });
    expect((await post(`${url}/webhooks/pix-usdt`, first.id)).body).toEqual({ received: true, duplicate: true });
    expect(await forged(`${url}/webhooks/pix-usdt`)).toBe(400);
    expect(await otherRoute(`${url}/api/echo`)).toEqual({ hello: 'world' });
    expect(events).toEqual([first.id]);
  });

  it('toExpressHandler behind express.json(): 500 with the fix without kept bytes; 200 with keepRawBody, or express.raw on the route', async () => {
    const plain = receiver();
    const kept = receiver();
    const raw = receiver();
    const app = express();
    app.post('/kept', express.json({ verify: keepRawBody }), toExpressHandler(kept.handler));
    app.post('/raw', express.raw({ type: '*/*' }), toExpressHandler(raw.handler));
    app.use(express.json());
    app.post('/plain', toExpressHandler(plain.handler));
    const url = await listen(createServer(app));
    const lost = await post(`${url}/plain`);
    expect(lost).toMatchObject({ status: 500, body: { error: 'raw_body_unavailable', reason: 'parsed_body' } });
    expect(plain.events).toEqual([]);
    expect(plain.errors).toHaveLength(1);
    expect((await post(`${url}/kept`)).status).toBe(200);
    expect((await post(`${url}/raw`)).status).toBe(200);
    expect([kept.events.length, raw.events.length]).toEqual([1, 1]);
  });

  it('expressWebhook fails at start-up, with the fix, where it cannot reach the middleware stack', () => {
    const { handler } = receiver();
    const notExpress = { use: vi.fn(), post: vi.fn() };
    expect(() => expressWebhook(notExpress, '/webhooks', handler)).toThrow(/register app\.post\(path, express\.raw\(\{ type: '\*\/\*' \}\), toExpressHandler\(handler\)\) before app\.use\(express\.json\(\)\)/);
    expect(notExpress.post).not.toHaveBeenCalled();
    expect(() => expressWebhook(express(), 'webhooks', handler)).toThrow(/path starting with "\/"/);
  });

  it('expressWebhook refuses a Router at start-up (the app\'s parsers run first), saying what to do', () => {
    const { handler } = receiver();
    const router = express.Router();
    expect(() => expressWebhook(router as never, '/pix-usdt', handler)).toThrow(/needs the application, not a Router.*express\.raw\(\{ type: '\*\/\*' \}\), toExpressHandler\(handler\)/);
    expect(router.stack).toHaveLength(0);
  });
});

describe('Express 4 (body-parser 1)', () => {
  it('expressWebhook gets the raw bytes although express.json() was mounted first', async () => {
    const { handler, events } = receiver();
    const app = (express4 as typeof express)();
    app.use((express4 as typeof express).json());
    app.post('/api/echo', (req, res) => void res.json(req.body));
    expressWebhook(app, '/webhooks/pix-usdt', handler);
    const url = await listen(createServer(app));
    const first = await post(`${url}/webhooks/pix-usdt`);
    expect(first).toMatchObject({ status: 200, body: { received: true } });
    expect((await post(`${url}/webhooks/pix-usdt`, first.id)).body).toEqual({ received: true, duplicate: true });
    expect(await otherRoute(`${url}/api/echo`)).toEqual({ hello: 'world' });
    expect(events).toEqual([first.id]);
  });
});

describe('Fastify 5', () => {
  it('fastifyWebhook reads raw bytes in its own scope; Fastify parses JSON for every other route', async () => {
    const { handler, events } = receiver();
    const app = Fastify();
    closers.push(() => app.close());
    app.post('/api/echo', async (request) => request.body);
    await app.register(fastifyWebhook, { path: '/webhooks/pix-usdt', handler });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const first = await post(`${url}/webhooks/pix-usdt`);
    expect(first).toMatchObject({ status: 200, body: { received: true } });
    expect((await post(`${url}/webhooks/pix-usdt`, first.id)).body).toEqual({ received: true, duplicate: true });
    expect(await forged(`${url}/webhooks/pix-usdt`)).toBe(400);
    expect(await otherRoute(`${url}/api/echo`)).toEqual({ hello: 'world' });
    expect(events).toEqual([first.id]);
  });

  it('keeps working under a prefix and beside an app-wide custom JSON parser', async () => {
    const { handler, events } = receiver();
    const app = Fastify();
    closers.push(() => app.close());
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, { parsedBy: 'app', length: (body as string).length }));
    app.post('/api/echo', async (request) => request.body);
    await app.register(fastifyWebhook, { path: '/pix-usdt', handler, prefix: '/webhooks' } as never);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    expect((await post(`${url}/webhooks/pix-usdt`)).status).toBe(200);
    expect(await otherRoute(`${url}/api/echo`)).toMatchObject({ parsedBy: 'app' });
    expect(events).toHaveLength(1);
  });

  it('fails at start-up, with the fix, when registered without a path or a handler', async () => {
    const { handler } = receiver();
    const noPath = Fastify();
    closers.push(() => noPath.close());
    await expect(noPath.register(fastifyWebhook, { handler } as never).ready()).rejects.toThrow(/app\.register\(fastifyWebhook, \{ path: '\/webhooks\/pix-usdt', handler \}\)/);
    const noHandler = Fastify();
    closers.push(() => noHandler.close());
    await expect(noHandler.register(fastifyWebhook, { path: '/webhooks' } as never).ready()).rejects.toThrow(/handler made by createWebhookHandler/);
  });
});
