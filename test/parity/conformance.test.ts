/**
 * Conformance against the three faces of the bundled sandbox: in process (`sandbox.fetch`),
 * behind msw, and the HTTP server (dist/cli.js serve). The sandbox implements the project's
 * decisions, so every scenario passes with no finding; and a server that changes one code is
 * caught by the right scenario with a readable diff.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandboxHandlers } from 'pix-usdt/sandbox/msw';
import { SANDBOX_PIX_EMAIL, SANDBOX_PIX_NOT_FOUND_EMAIL, SANDBOX_PIX_NOT_FOUND_PHONE, SANDBOX_PIX_PHONE } from 'pix-usdt/sandbox';
import { DEFAULT_PIX_FIXTURES, SCENARIOS, formatJunit, formatTable, runConformance, type ConformanceReport, type ReceivedWebhook } from 'pix-usdt/parity';
import { runConformanceCommand } from '../../src/parity/command.js';
import { generateSelfSigned } from '../../src/server/http/tls.js';
import { serve, stopAll } from '../server/helpers.js';
import { FAST, breakDuplicateCpf, sandboxWithReceiver } from './helpers.js';

function expectAllPass(report: ConformanceReport, skipped: string[] = []): void {
  const notPassing = report.scenarios.filter((s) => s.verdict !== 'pass' && !skipped.includes(s.id)).map((s) => ({ id: s.id, verdict: s.verdict, reason: s.reason, checks: s.checks.filter((c) => !c.ok) }));
  expect(notPassing, formatTable(report)).toEqual([]);
  expect(report.scenarios.map((s) => s.id)).toEqual(SCENARIOS.map((s) => s.id).filter((id) => id !== 'rate-limit.exceeded' || report.scenarios.some((s) => s.id === id)));
  expect(report.ok).toBe(true);
  // Every scenario made checks: a scenario that checks nothing cannot fail.
  for (const s of report.scenarios) if (!skipped.includes(s.id)) expect(s.checks.length, s.id).toBeGreaterThan(0);
}

afterEach(() => stopAll());

describe('conformance against the bundled sandbox', () => {
  it('in process (sandbox.fetch): every scenario passes, webhooks and the rate limit included', async () => {
    const { sandbox, received } = sandboxWithReceiver();
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, receiverUrl: 'https://receiver.test/hooks', received: () => received, exerciseRateLimit: true });
    expectAllPass(report);
    expect(report.counts).toEqual({ pass: SCENARIOS.length, finding: 0, fail: 0, error: 0, skipped: 0 });
  });

  it('behind msw (setupServer over the sandbox handlers, the global fetch)', async () => {
    const { sandbox, received } = sandboxWithReceiver();
    const server = setupServer(...createSandboxHandlers(sandbox, { baseUrl: 'https://sandbox.pix-usdt.com' }));
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.pix-usdt.com', apiKey: sandbox.apiKey, receiverUrl: 'https://receiver.test/hooks', received: () => received });
      expectAllPass(report);
    } finally {
      server.close();
    }
  });

  it('the HTTP server (dist/cli.js serve --port 0), with a real local HTTPS webhook receiver', async () => {
    const received: ReceivedWebhook[] = [];
    const receiver: Server = createServer(await generateSelfSigned('localhost'), (req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (c: string) => (body += c)).on('end', () => {
        received.push({ headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])), body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const { ready } = await serve(['--insecure-webhooks']);
      const receiverUrl = `https://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const report = await runConformance({ ...FAST, baseUrl: ready.url, apiKey: ready.api_key, receiverUrl, received: () => received });
      expectAllPass(report);
    } finally {
      receiver.closeAllConnections();
      receiver.close();
    }
  });

  it('without a receiver URL the webhook scenario is skipped, not failed', async () => {
    const { sandbox } = sandboxWithReceiver();
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['webhooks.delivery', 'errors.request'] });
    expect(report.scenarios.map((s) => [s.id, s.verdict])).toEqual([['errors.request', 'pass'], ['webhooks.delivery', 'skipped']]);
    expect(report.ok).toBe(true);
  });

  it('with a receiver URL but no view of the receiver, the delivery records are read', async () => {
    const { sandbox } = sandboxWithReceiver();
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch, scenarios: ['webhooks.delivery'], receiverUrl: 'https://receiver.test/hooks' });
    const checks = report.scenarios[0]?.checks ?? [];
    expect(report.scenarios[0]?.verdict).toBe('pass');
    expect(checks.find((c) => c.name === 'deliveries recorded')).toMatchObject({ level: 'promise', ok: true });
    expect(checks.find((c) => c.name === 'delivery record fields')?.observed).toContain('response_status');
  });

  it("the parity Pix fixtures are the sandbox's constants", () => {
    expect(DEFAULT_PIX_FIXTURES).toEqual({ email: SANDBOX_PIX_EMAIL, notFoundEmail: SANDBOX_PIX_NOT_FOUND_EMAIL, phone: SANDBOX_PIX_PHONE, notFoundPhone: SANDBOX_PIX_NOT_FOUND_PHONE });
  });
});

describe('a deliberately wrong server', () => {
  it('one changed error code turns users.errors red with a readable diff, and only that scenario', async () => {
    const { sandbox } = sandboxWithReceiver();
    breakDuplicateCpf(sandbox);
    const report = await runConformance({ ...FAST, baseUrl: 'https://sandbox.test', apiKey: sandbox.apiKey, fetch: sandbox.fetch });
    expect(report.ok).toBe(false);
    expect(report.scenarios.filter((s) => s.verdict !== 'pass' && s.verdict !== 'skipped').map((s) => s.id)).toEqual(['users.errors']);
    const failed = report.scenarios.find((s) => s.id === 'users.errors')?.checks.filter((c) => !c.ok);
    expect(failed).toEqual([{ name: 'duplicate CPF: code', level: 'promise', expected: 'duplicate_cpf', observed: 'duplicate_document', ok: false }]);
    const row = formatTable(report).split('\n').find((l) => l.includes('duplicate CPF: code'));
    expect(row?.replace(/\s+/g, ' ').trim()).toBe('users.errors › duplicate CPF: code duplicate_cpf duplicate_document FAIL');
    expect(formatJunit(report)).toContain('<failure message="duplicate CPF: code: expected duplicate_cpf, observed duplicate_document">');
  });

  it('the command exits 1 on it, 0 on the right server, 2 on a live key before any request', async () => {
    const out = (): { text: string; err: string; files: Map<string, string>; sink: Parameters<typeof runConformanceCommand>[1] } => {
      const o = { text: '', err: '', files: new Map<string, string>() };
      return { ...o, get text() { return o.text; }, get err() { return o.err; }, sink: { stdout: (t) => (o.text += t), stderr: (t) => (o.err += t), writeFile: (p, t) => void o.files.set(p, t) } };
    };
    const wrong = sandboxWithReceiver().sandbox;
    breakDuplicateCpf(wrong);
    const a = out();
    expect(await runConformanceCommand({ baseUrl: 'https://sandbox.test', apiKey: wrong.apiKey, fetch: wrong.fetch, pacing: false, scenarios: ['users.'], junit: 'report.xml' }, a.sink)).toBe(1);
    expect(a.text).toContain('FAIL');
    expect(a.files.get('report.xml')).toContain('<failure');
    const right = sandboxWithReceiver().sandbox;
    const b = out();
    expect(await runConformanceCommand({ baseUrl: 'https://sandbox.test', apiKey: right.apiKey, fetch: right.fetch, pacing: false, scenarios: ['users.'], json: true }, b.sink)).toBe(0);
    expect(JSON.parse(b.text)).toMatchObject({ ok: true, counts: { pass: 3 } });
    let calls = 0;
    const c = out();
    const code = await runConformanceCommand({ baseUrl: 'https://sandbox.test', apiKey: `sk_live_${'a'.repeat(32)}`, fetch: async () => { calls++; return new Response('{}'); } }, c.sink);
    expect([code, calls]).toEqual([2, 0]);
    expect(c.err).toMatch(/Refusing a sk_live_ key/);
  });
});
