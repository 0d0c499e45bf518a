// The inspector in real Chromium, served by the sandbox server at /_inspector/: open a
// conversion, simulate the deposit from the page, see the state change and the delivery arrive
// live (server-sent events, no reload), redeliver, advance the clock until a standby is
// abandoned. Each page is checked with axe-core (no serious or critical violation) and
// screenshotted at 1280x800 for docs/images/ (docs/inspector.md and the README show them).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { type RunningServer, startServer } from '../../src/server/http/start.js';
import { launchChromium } from '../support/browser.js';
import { cpf, onrampBody } from '../support/fixtures.js';

const root = new URL('../../', import.meta.url).pathname;
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let browser: Browser;
let server: RunningServer;
let receiver: Server;
let receiverUrl: string;
const received: string[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push((JSON.parse(body) as { type: string }).type);
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startServer(
    { port: 0, host: '127.0.0.1', sandbox: { seed: 7 } },
    () => undefined,
  );
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
  if (receiver?.listening) await new Promise((resolve) => receiver.close(resolve));
});

// The pages hold real times, so a screenshot differs on every run: it is written to docs/images/
// when missing or with UPDATE_SCREENSHOTS=1, and otherwise only checked (a 1280 px wide PNG).
async function screenshot(page: Page, name: string, fullPage = false): Promise<void> {
  const png = await page.screenshot({ fullPage });
  expect(png.subarray(1, 4).toString()).toBe('PNG');
  expect(png.readUInt32BE(16)).toBe(1280);
  const file = `${root}docs/images/${name}.png`;
  if (process.env['UPDATE_SCREENSHOTS'] === '1' || !existsSync(file)) writeFileSync(file, png);
}

async function axe(page: Page): Promise<Array<{ id: string; impact: string; nodes: number }>> {
  await page.addScriptTag({ content: AXE });
  const result = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (ctx: Document, opts: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> } }).axe;
    const r = await run.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('the inspector in Chromium', () => {
  it('drives conversions end to end, live, accessibly', async () => {
    const client = new PixUsdt({ apiKey: server.sandbox.apiKey, baseUrl: server.url, maxRetries: 0 });
    await client.webhookEndpoints.create({ url: receiverUrl, event_types: ['*'] });
    const user = await client.users.create({ external_id: 'insp-1', name: 'Ana Souza', document_type: 'cpf', document_number: cpf(1) });
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const onramp = await client.quotes.accept(
      (await client.quotes.create(onrampBody(user.id))).id,
    );
    const offramp = await client.quotes.accept(
      (await client.quotes.create({ user_id: user.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '100.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' })).id,
    );
    const tenant = server.sandbox.tenantId;
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));

    // The tenant page: lists, clock, keys by prefix.
    await page.goto(server.inspectorUrl);
    await page.getByRole('link', { name: onramp.id }).waitFor();
    await page.getByText('Live', { exact: true }).waitFor();
    expect(await page.content()).not.toContain(server.sandbox.apiKey);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'inspector-tenant');

    // Set the price from the page (POST /v1/test_helpers/price with the tenant's key).
    await page.getByLabel('Mid rate').fill('5.55');
    await page.getByRole('button', { name: 'Set price' }).click();
    await page.getByText('Mid rate 5.55 BRL per USDT', { exact: false }).waitFor();
    expect(server.sandbox.price.midRate).toBe('5.55');
    await page.getByRole('button', { name: 'Make unavailable' }).click();
    await page.getByRole('button', { name: 'Make available' }).waitFor();
    expect(server.sandbox.price.available).toBe(false);
    await page.getByRole('button', { name: 'Make available' }).click();
    await page.getByRole('button', { name: 'Make unavailable' }).waitFor();

    // Open the onramp conversion and pay it from the page.
    await page.getByRole('link', { name: onramp.id }).click();
    await page.getByRole('heading', { name: /Conversion/ }).waitFor();
    expect(await page.getByTestId('path').textContent()).toBe('awaiting_deposit');
    await page.getByLabel('settle now').check();
    await page.getByRole('button', { name: 'Simulate Pix payment' }).click();
    // The state change and the delivery arrive through the live feed (the page is not reloaded).
    await page.getByTestId('path').filter({ hasText: 'awaiting_deposit → funded → completed' }).waitFor();
    const delivered = page.getByTestId('delivery').filter({ hasText: 'succeeded' }).filter({ hasText: 'answered 200' });
    await delivered.first().waitFor();
    expect(received).toContain('conversion.completed');
    expect(await page.locator('.diagram .node.current').getAttribute('data-state')).toBe('completed');
    // A finished conversion is offered no action (issue 36); a delivery line reads "to URL, 1 attempt, receiver answered 200".
    await page.getByTestId('no-actions').filter({ hasText: 'completed' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Liquidate|Expire|Cancel|Fail|Simulate .*)$/ }).count()).toBe(0);
    expect(await delivered.first().textContent()).toMatch(new RegExp(`succeeded\\s*to ${receiverUrl}, 1 attempt, receiver answered 200 in \\d+ ms`));
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'inspector-conversion', true);

    // Redeliver the completion: a second attempt appears, and the receiver gets it again.
    const completedDelivery = page.locator('li', { hasText: 'conversion.completed' }).getByTestId('delivery');
    const before = received.filter((t) => t === 'conversion.completed').length;
    await completedDelivery.getByRole('button', { name: 'Redeliver' }).click();
    await completedDelivery.filter({ hasText: '2 attempts' }).waitFor();
    expect(received.filter((t) => t === 'conversion.completed').length).toBe(before + 1);

    // The offramp: an under-deposit puts it in standby; advancing the clock abandons it.
    await page.getByRole('searchbox', { name: 'Search by id' }).fill(offramp.id);
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('heading', { name: new RegExp(offramp.id) }).waitFor();
    await page.getByLabel('Amount').fill('60.000000');
    await page.getByRole('button', { name: 'Simulate USDT deposit' }).click();
    await page.getByTestId('path').filter({ hasText: 'awaiting_deposit → standby' }).waitFor();
    // In standby: liquidate, a late deposit or fail; no expire, no cancel.
    await page.getByRole('button', { name: 'Liquidate' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Expire|Cancel)$/ }).count()).toBe(0);
    await page.getByRole('button', { name: '+8 days' }).click();
    await page.getByTestId('path').filter({ hasText: 'awaiting_deposit → standby → abandoned' }).waitFor();
    expect(await page.locator('.diagram .node.current').getAttribute('data-state')).toBe('abandoned');
    expect((await client.conversions.retrieve(offramp.id)).status).toBe('abandoned');

    // The request log, filtered.
    await page.getByRole('link', { name: 'Request log' }).click();
    await page.getByLabel('Path contains').fill('/deposit');
    await page.locator('tbody tr').filter({ hasText: `/v1/test_helpers/conversions/${offramp.id}/deposit` }).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(2);
    expect(await axe(page)).toEqual([]);
    await screenshot(page, 'inspector-requests');

    // Keyboard: the skip link is the first stop and moves focus to the content, page kept.
    await page.reload();
    await page.locator('tbody tr').first().waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('main');
    expect(await page.getByRole('heading', { name: 'Request log' }).count()).toBe(1);
    expect(errors).toEqual([]);
    expect(tenant).toBe(server.sandbox.inspector.tenants()[0]?.id);
    await context.close();
  }, 120_000);
});
