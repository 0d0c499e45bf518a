/**
 * CORS (issue 17): a page on another origin calls the server with fetch, in a real Chromium.
 * Preflights are answered without authentication; loopback origins are allowed by default,
 * others by `--cors-origin`. The header-level rules are checked from Node as well.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, type ServerOptions, startServer } from '../../../src/server/http/start.js';
import { launchChromium } from '../../support/browser.js';

const HTML = '<!doctype html><meta charset="utf-8"><title>partner app</title><p>app</p>';
const running: RunningServer[] = [];
let pages: http.Server | undefined;
let pageOrigin = '';
let browser: Browser | undefined;

beforeAll(async () => {
  // The partner's app, on its own loopback origin (another host name and port than the API's).
  pages = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(HTML));
  // '::' (dual stack) also takes the IPv4-mapped address of the test below.
  await new Promise<void>((resolve) => pages?.listen(0, '::', resolve));
  pageOrigin = `http://localhost:${(pages.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (pages?.listening) await new Promise((resolve) => pages?.close(resolve));
});

afterEach(async () => {
  for (const server of running.splice(0)) {
    server.forceClose();
    await server.close();
  }
});

async function start(extra: Partial<ServerOptions> = {}): Promise<RunningServer> {
  const options: ServerOptions = {
    port: 0,
    host: '127.0.0.1',
    ...extra,
  };
  const server = await startServer(options, () => undefined);
  running.push(server);
  return server;
}

interface PageResult {
  ok: boolean;
  error?: string;
  status?: number;
  requestId?: string | null;
  replayed?: string | null;
  body?: { id?: string; name?: string };
}

/** In the page: a preflighted POST (Authorization, Idempotency-Key, JSON), sent twice with one key. */
function createUserFromPage(page: Page, api: string, key: string): Promise<PageResult[]> {
  return page.evaluate(
    async ({ api, key }) => {
      const once = async (): Promise<PageResult> => {
        try {
          const res = await fetch(`${api}/v1/users`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${key}`, 'Idempotency-Key': 'from-the-page', 'Content-Type': 'application/json' },
            body: JSON.stringify({ external_id: 'page-1', name: 'Ana Page', document_type: 'cpf', document_number: '52998224725' }),
          });
          return { ok: true, status: res.status, requestId: res.headers.get('x-request-id'), replayed: res.headers.get('idempotent-replayed'), body: await res.json() };
        } catch (error) {
          return { ok: false, error: String(error) };
        }
      };
      return [await once(), await once()];
    },
    { api, key },
  );
}

describe('in Chromium, a page on another origin', () => {
  it('on loopback: preflighted calls work and the API headers are readable', async () => {
    const server = await start();
    const page = await (browser as Browser).newPage();
    await page.goto(pageOrigin);
    const [first, replay] = await createUserFromPage(page, server.url, server.sandbox.apiKey);
    expect(first).toMatchObject({ ok: true, status: 201, requestId: expect.stringMatching(/^req_/), replayed: null, body: { name: 'Ana Page' } });
    expect(replay).toMatchObject({ ok: true, status: 201, replayed: 'true', body: { id: first?.body?.id } });
    await page.close();
  });

  it('elsewhere: refused by default, allowed with --cors-origin', async () => {
    // An origin whose host is not a loopback name (so not allowed by default) that still reaches
    // this machine: a page served from a public address could not call a loopback server over
    // http at all (Chromium's Private Network Access), whatever the CORS headers.
    const origin = `http://[::ffff:7f00:1]:${(pages?.address() as AddressInfo).port}`;
    for (const allowed of [false, true]) {
      const server = await start(allowed ? { corsOrigins: [origin] } : {});
      const page = await (browser as Browser).newPage();
      await page.goto(`${origin}/`);
      expect(await page.evaluate(() => location.origin)).toBe(origin);
      const [result] = await createUserFromPage(page, server.url, server.sandbox.apiKey);
      if (allowed) expect(result).toMatchObject({ ok: true, status: 201 });
      else expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/Failed to fetch/) });
      // Refused before anything ran: no user was created.
      expect(server.sandbox.events().length > 0).toBe(allowed);
      await page.close();
    }
  });
});

describe('the CORS headers', () => {
  it('a preflight needs no key; an allowed origin gets the API headers, allowed and exposed', async () => {
    const server = await start();
    const preflight = await fetch(`${server.url}/v1/users`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,idempotency-key,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(preflight.headers.get('access-control-allow-methods')).toMatch(/POST/);
    const allowed = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(['authorization', 'idempotency-key', 'content-type']));
    expect(preflight.headers.get('x-request-id')).toMatch(/^req_/);
    expect(preflight.headers.get('access-control-allow-private-network')).toBeNull();
    // A secure page on a public origin asks before calling a private network (Private Network Access).
    const pna = await fetch(`${server.url}/v1/users`, {
      method: 'OPTIONS',
      headers: { origin: 'http://127.0.0.1:8080', 'access-control-request-method': 'GET', 'access-control-request-private-network': 'true' },
    });
    expect(pna.headers.get('access-control-allow-private-network')).toBe('true');
    const answer = await fetch(`${server.url}/v1/users/00000000-0000-4000-8000-000000000000`, { headers: { origin: 'http://[::1]:3000', authorization: `Bearer ${server.sandbox.apiKey}` } });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('access-control-allow-origin')).toBe('http://[::1]:3000');
    expect(answer.headers.get('vary')).toMatch(/Origin/);
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').toLowerCase().split(/,\s*/);
    expect(exposed).toEqual(expect.arrayContaining(['x-request-id', 'idempotent-replayed', 'retry-after']));
  });

  it('another origin: the preflight is refused in the envelope with the way out, and answers carry no CORS header', async () => {
    const server = await start();
    const preflight = await fetch(`${server.url}/v1/users`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(400);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(await preflight.json()).toMatchObject({ code: 'validation_error', message: expect.stringContaining('--cors-origin https://evil.example') });
    const answer = await fetch(`${server.url}/v1/users`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${server.sandbox.apiKey}` } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    // `*` allows any origin (a team's shared sandbox).
    const open = await start({ corsOrigins: ['*'] });
    const anyOrigin = await fetch(`${open.url}/v1/users`, { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' } });
    expect(anyOrigin.status).toBe(204);
    expect(anyOrigin.headers.get('access-control-allow-origin')).toBe('https://evil.example');
  });
});
