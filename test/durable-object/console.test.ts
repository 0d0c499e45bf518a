/**
 * The inspector's console in Chromium behind the Durable Objects Worker (in process, bridged to a
 * local HTTP port): the API refuses the page without the operator's token, so the console asks
 * for it; the token is kept in the tab's sessionStorage and sent as a header (never in a URL),
 * a tenant's key does not open it, and the live stream carries the header too.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import worker from '../../src/durable-object/index.js';
import { launchChromium } from '../support/browser.js';
import { inProcessDeployment } from '../support/durable-objects.js';

const TOKEN = 'operator-token-for-the-console';
const { env, settled } = inProcessDeployment({ CONTROL_TOKEN: TOKEN });
let browser: Browser;
let bridge: Server;
let base: string;

// Node's HTTP in front of the Worker's fetch handler, streaming both ways (the live feed is long-lived).
function bridgeToWorker(): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const abort = new AbortController();
      res.on('close', () => abort.abort());
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const body = chunks.length > 0 && req.method !== 'GET' && req.method !== 'HEAD' ? Buffer.concat(chunks) : null;
      void worker
        .fetch(new Request(`${base}${req.url ?? '/'}`, { method: req.method ?? 'GET', headers, body, signal: abort.signal }), env)
        .then((answer) => {
          res.writeHead(answer.status, Object.fromEntries(answer.headers));
          if (answer.body === null) return void res.end();
          Readable.fromWeb(answer.body as NodeReadableStream).on('error', () => res.destroy()).pipe(res);
        })
        .catch(() => res.writeHead(500).end());
    });
  });
}

beforeAll(async () => {
  bridge = bridgeToWorker();
  await new Promise<void>((resolve) => bridge.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(bridge.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  bridge?.closeAllConnections();
  await new Promise((resolve) => bridge?.close(resolve));
  await settled();
});

describe("the inspector's console behind the Worker", () => {
  it("asks for the operator's token, keeps it in sessionStorage, sends it as a header only", async () => {
    const made = await fetch(`${base}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: '{}' });
    expect(made.status).toBe(201);
    const tenant = (await made.json()) as { tenant_id: string; api_key: string };
    const tenantKey = tenant.api_key;

    const page = await browser.newPage();
    const sent: Array<{ url: string; authorization: string | undefined }> = [];
    // The URL is known at once and every one is checked below; the headers come later, and a
    // request still in flight when the page closes (the stream reconnecting) never gets them.
    page.on('request', (r) => {
      const entry: { url: string; authorization: string | undefined } = { url: r.url(), authorization: undefined };
      sent.push(entry);
      r.allHeaders().then(
        (h) => { entry.authorization = h['authorization']; },
        () => undefined,
      );
    });
    await page.goto(`${base}/_inspector/`);

    // Refused without the token: the form, and no tenant in the navigation.
    const field = page.getByLabel('Token');
    await field.waitFor();
    expect(await page.locator(`a[href*="${tenant.tenant_id}"]`).count()).toBe(0);

    // A tenant's key is not the operator's token: the API refuses it and the form comes back.
    await field.fill(tenantKey);
    const refusedAgain = page.waitForResponse((r) => r.url().endsWith('/_inspector/api/tenants') && r.status() === 401);
    await page.getByRole('button', { name: 'Open' }).click();
    await refusedAgain;
    await page.getByLabel('Token').waitFor();

    await page.getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Open' }).click();
    await page.locator(`a[href*="${tenant.tenant_id}"]`).first().waitFor();
    await expect.poll(() => page.getByTestId('live').textContent()).toBe('Live');
    expect(await page.evaluate(() => sessionStorage.getItem('pix-usdt-inspector-token'))).toBe(TOKEN);

    // A reload of the tab keeps the token: straight to the data, no form.
    await page.reload();
    await page.locator(`a[href*="${tenant.tenant_id}"]`).first().waitFor();
    expect(await page.getByLabel('Token').count()).toBe(0);

    await expect.poll(() => sent.filter((s) => s.url.includes('/_inspector/api/stream') && s.authorization === `Bearer ${TOKEN}`).length).toBeGreaterThan(0);
    const api = sent.filter((s) => s.url.includes('/_inspector/api/'));
    expect(api.filter((s) => s.authorization === `Bearer ${TOKEN}`).length).toBeGreaterThan(0);
    // Never in a URL: no request the page made names the token or the tenant's key.
    for (const s of sent) {
      expect(s.url).not.toContain(TOKEN);
      expect(s.url).not.toContain(tenantKey);
    }
    await page.close();
  }, 60_000);
});
