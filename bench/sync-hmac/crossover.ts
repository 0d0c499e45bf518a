/**
 * Where a synchronous HMAC in JavaScript stops beating `subtle.sign` (issue 34): `constructEvent`
 * from the sources with bench/sync-hmac/hmac.ts, built twice, once hashing every body in
 * JavaScript and once none (WebCrypto), verifying the same delivery padded to each size, on
 * Node (`engine: 'webcrypto'`) and in Chromium. Interleaved rounds, the ratio taken within a
 * round, the median round counts (as bench/webhooks.ts). Above 1: JavaScript is the faster.
 *
 * Run: `node --import tsx bench/sync-hmac/crossover.ts [sizes...]`.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { launchChromium } from '../../test/support/browser.js';
import { syncHmacWebhooks } from './plugin.js';

type Verify = (body: string, headers: Record<string, string>, secret: string, options?: object) => Promise<unknown>;
type Sign = (body: string, secret: string, options?: object) => Promise<string>;

// Runs on Node and, as text, in the page: the same code in both.
const MEASURE = async (js: { constructEvent: Verify; signPayload: Sign }, web: { constructEvent: Verify }, sizes: number[], rounds: number, roundMs: number) => {
  const SECRET = 'whsec_bench_0123456789abcdefghijklmnopqrstuvwxyz';
  const opts = { engine: 'webcrypto' };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
  async function sample(op: () => Promise<unknown>, ms: number) {
    let n = 0;
    const start = performance.now();
    while (performance.now() < start + ms) {
      for (let i = 0; i < 20; i++) await op();
      n += 20;
    }
    return n / ((performance.now() - start) / 1000);
  }
  const out: Array<{ bytes: number; jsPerSecond: number; webCryptoPerSecond: number; jsVsWebCrypto: number }> = [];
  for (const size of sizes) {
    const event = { id: '6f1d2c8e-4b7a-4e21-9d3f-0a8b7c6d5e4f', type: 'conversion.completed', created_at: '2025-01-01T12:00:00.000Z', data: { object: { note: '' } } };
    event.data.object.note = 'x'.repeat(Math.max(0, size - JSON.stringify(event).length));
    const body = JSON.stringify(event);
    const headers = { 'x-service-signature': await js.signPayload(body, SECRET), 'x-service-event-id': event.id };
    const a = () => js.constructEvent(body, headers, SECRET, opts);
    const b = () => web.constructEvent(body, headers, SECRET, opts);
    if (((await a()) as { id: string }).id !== event.id || ((await b()) as { id: string }).id !== event.id) throw new Error('a case rejected the delivery');
    await sample(a, 100);
    await sample(b, 100);
    const pairs: Array<[number, number]> = [];
    for (let r = 0; r < rounds; r++) {
      if (r % 2) pairs.push([await sample(a, roundMs), await sample(b, roundMs)]);
      else {
        const y = await sample(b, roundMs);
        pairs.push([await sample(a, roundMs), y]);
      }
    }
    out.push({ bytes: body.length, jsPerSecond: Math.round(median(pairs.map((p) => p[0]))), webCryptoPerSecond: Math.round(median(pairs.map((p) => p[1]))), jsVsWebCrypto: median(pairs.map((p) => p[0] / p[1])) });
  }
  return out;
};

const importText = (code: string) => import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
const SIZES = sizes.length ? sizes : [1024, 2048, 4096, 8192, 16384];
const ROUNDS = 12;
const ROUND_MS = 100;

const nodeJs = await importText(await syncHmacWebhooks('node', 1 << 20));
const nodeWeb = await importText(await syncHmacWebhooks('node', 0));
console.log(`Node ${process.version}, engine 'webcrypto': JavaScript / subtle.sign, constructEvent`);
console.table(await MEASURE(nodeJs, nodeWeb, SIZES, ROUNDS, ROUND_MS));

const files: Record<string, string> = {
  '/js.js': await syncHmacWebhooks('browser', 1 << 20),
  '/web.js': await syncHmacWebhooks('browser', 0),
};
const server = createServer((req, res) => {
  const file = files[req.url ?? ''];
  if (file) res.writeHead(200, { 'content-type': 'text/javascript' }).end(file);
  else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><meta charset="utf-8">');
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const browser = await launchChromium();
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const result = await page.evaluate(
    async ([measure, sizesIn, rounds, ms]) => {
      const js = await import('/js.js' as string);
      const web = await import('/web.js' as string);
      // The function's text as tsx compiled it may call __name (keepNames): a no-op here.
      return (new Function(`const __name = (f) => f; return (${measure})`)() as typeof MEASURE)(js, web, sizesIn, rounds, ms);
    },
    [MEASURE.toString(), SIZES, ROUNDS, ROUND_MS] as const,
  );
  console.log(`Chromium ${browser.version()}: JavaScript / subtle.sign, constructEvent`);
  console.table(result);
} finally {
  await browser.close();
  server.close();
}
