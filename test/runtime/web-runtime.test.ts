/**
 * Runtime matrix, web-standard part (issue 6): the `pix-usdt`, `pix-usdt/webhooks` and
 * `pix-usdt/sandbox` entries, bundled for the browser by esbuild, run in a `node:vm` context
 * that holds web globals only (what a Worker or a browser offers), with no `Buffer`, `process`,
 * `require`, `global`, `module` or `setImmediate`. Inside it: client calls against an in-context
 * handler and against the bundled sandbox, an API error, and a webhook sign + verify round trip
 * with WebCrypto (and a refused forgery). Then the same where code generation from strings is
 * refused (`new Function` throws, as under a strict Content-Security-Policy or in a Worker): the
 * sandbox's request schemas stay interpreted there (src/models/compile.ts), with the same answers.
 */
import { createContext, runInContext } from 'node:vm';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { inspectorUiEsbuildPlugin } from '../../scripts/inspector-ui.js';
import { webCryptoOnlyEsbuildPlugin } from '../../scripts/webcrypto-only.js';

const ENTRIES = {
  PixUsdtBundle: 'src/index.ts',
  PixUsdtWebhooks: 'src/webhooks/index.ts',
  PixUsdtSandbox: 'src/sandbox/index.ts',
} as const;

async function bundle(globalName: string, entry: string): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'iife',
    globalName,
    platform: 'browser',
    target: 'es2022',
    logLevel: 'silent',
    // The sandbox's inspector script is built by the package build (scripts/inspector-ui.ts);
    // the webhook modules are those of the entry's build for browsers (scripts/webcrypto-only.ts).
    plugins: [inspectorUiEsbuildPlugin, webCryptoOnlyEsbuildPlugin],
  });
  return result.outputFiles[0]?.text ?? '';
}

/** The globals of a web-standard runtime (a Worker), taken from this process. */
function webGlobals(): Record<string, unknown> {
  const names = [
    'fetch', 'Request', 'Response', 'Headers', 'FormData', 'Blob', 'URL', 'URLSearchParams', 'TextEncoder', 'TextDecoder', 'crypto',
    'AbortController', 'AbortSignal', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'structuredClone', 'console',
    'queueMicrotask', 'atob', 'btoa', 'EventTarget', 'Event', 'ReadableStream', 'WritableStream', 'TransformStream', 'DOMException', 'performance',
  ];
  const g = globalThis as unknown as Record<string, unknown>;
  return Object.fromEntries(names.map((n) => [n, g[n]]));
}

const SCENARIO = String.raw`
(async () => {
  const { PixUsdt, isApiErrorCode } = PixUsdtBundle;
  const { signPayload, verifySignature, constructEvent } = PixUsdtWebhooks;
  const out = {};
  out.nodeGlobals = ['Buffer', 'process', 'require', 'global', 'module', 'setImmediate', '__dirname'].filter((n) => typeof globalThis[n] !== 'undefined');

  // 1. A client call against an in-context handler.
  const user = { id: '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d', external_id: 'w', name: 'Worker', email: null, date_of_birth: null,
    user_type: 'individual', document_type: 'cpf', document_masked: '***.982.247-**', risk_profile: 'conservative',
    kyc_status: 'approved', kyc_approved_at: '2026-01-01T00:00:00.000Z', kyc_expires_at: '2027-01-01T00:00:00.000Z',
    custody_status: 'not_enrolled', custody_status_updated_at: null, metadata: {}, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };
  const seen = [];
  const handler = async (request) => {
    seen.push(request.method + ' ' + new URL(request.url).pathname + ' ' + (request.headers.get('authorization') || '').slice(0, 14));
    if (request.url.endsWith('/missing')) return new Response(JSON.stringify({ code: 'user_not_found', message: 'No such user.', request_id: 'req_2' }), { status: 404, headers: { 'content-type': 'application/json', 'x-request-id': 'req_2' } });
    return new Response(JSON.stringify(user), { status: request.method === 'POST' ? 201 : 200, headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' } });
  };
  const client = new PixUsdt({ apiKey: 'sk_test_' + 'a'.repeat(32), fetch: (input, init) => handler(new Request(input, init)), validation: 'strict' });
  out.retrieved = (await client.users.retrieve(user.id)).name;
  out.created = (await client.users.create({ external_id: 'w', name: 'Worker', document_type: 'cpf', document_number: '52998224725' })).id;
  try { await client.users.retrieve('missing'); } catch (error) { out.error = { code: error.code, status: error.status, guard: isApiErrorCode(error, 'user_not_found') }; }
  out.seen = seen;

  // 2. A whole offramp lifecycle against the bundled sandbox, in the same context.
  const sandbox = PixUsdtSandbox.createSandbox({ seed: 1, now: '2026-03-02T12:00:00.000Z' });
  const sc = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, validation: 'strict' });
  const u = await sc.users.create({ external_id: 'sb', name: 'Sandbox', document_type: 'cpf', document_number: '52998224725' });
  await sc.testHelpers.users.kyc(u.id, { status: 'approved' });
  const q = await sc.quotes.create({ user_id: u.id, source_currency: 'USDT', target_currency: 'BRL', source_amount: '100.000000', pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' });
  const c = await sc.quotes.accept(q.id);
  const done = await sc.testHelpers.conversions.simulateOfframpDeposit(c.id, { settle: true });
  out.lifecycle = done.status;
  out.events = sandbox.events().map((e) => e.type);
  try { await sc.users.create({ external_id: 'sb2', name: 'Refused', document_type: 'cpf', document_number: 52998224725, extra: true }); out.refused = 'accepted'; }
  catch (error) { out.refused = { code: error.code, issues: error.details.issues }; }
  try { new Function('return 1'); out.codegen = 'allowed'; } catch (error) { out.codegen = error.name; }

  // 3. Webhooks: sign, verify, construct, and refuse a forgery (WebCrypto only).
  const body = JSON.stringify({ id: 'evt_1', type: 'conversion.completed', created_at: '2026-03-02T12:00:00.000Z', data: { object: { id: c.id } } });
  const secret = 'whsec_' + 'k'.repeat(32);
  const header = await signPayload(body, secret);
  await verifySignature(body, header, secret);
  const event = await constructEvent(new TextEncoder().encode(body), { 'x-service-signature': header, 'x-service-event-id': 'evt_1' }, secret);
  out.webhook = { header: /^t=\d+,v1=[0-9a-f]{64}$/.test(header), type: event.type };
  try { await verifySignature(body.replace('completed', 'failed'), header, secret); out.forgery = 'accepted'; } catch (error) { out.forgery = error.reason; }
  return JSON.stringify(out);
})()
`;

// The three bundles, built once for every context below.
let built: Promise<Array<[string, string]>> | undefined;
function bundles(): Promise<Array<[string, string]>> {
  built ??= Promise.all(Object.entries(ENTRIES).map(async ([name, entry]) => [entry, await bundle(name, entry)] as [string, string]));
  return built;
}

async function scenarioIn(context: ReturnType<typeof createContext>): Promise<Record<string, unknown>> {
  for (const [entry, code] of await bundles()) {
    expect(code, `${entry} bundle`).not.toMatch(/\brequire\(["']node:/);
    // The WebCrypto-only webhook modules: no node:crypto lookup at all.
    if (entry === ENTRIES.PixUsdtWebhooks) expect(code).not.toContain('getBuiltinModule');
    runInContext(code, context, { filename: `${entry}.bundle.js` });
  }
  return JSON.parse((await runInContext(SCENARIO, context)) as string) as Record<string, unknown>;
}

const REFUSED = {
  code: 'validation_error',
  issues: [
    { path: 'document_number', message: 'Expected a string, received the number 52998224725' },
    { path: '', message: 'Unknown field "extra": remove it' },
  ],
};

describe('web-standard runtime (vm context with web globals only)', () => {
  it('runs the client, the sandbox and the webhooks without Node globals', { timeout: 60_000 }, async () => {
    const out = await scenarioIn(createContext(webGlobals()));
    expect(out).toMatchObject({
      nodeGlobals: [],
      retrieved: 'Worker',
      created: '6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d',
      error: { code: 'user_not_found', status: 404, guard: true },
      seen: ['GET /v1/users/6f1c0a34-5d8e-4b7a-9c1d-2e3f4a5b6c7d Bearer sk_test', 'POST /v1/users Bearer sk_test', 'GET /v1/users/missing Bearer sk_test'],
      lifecycle: 'completed',
      webhook: { header: true, type: 'conversion.completed' },
      refused: REFUSED,
      codegen: 'allowed',
    });
    expect(out['events']).toEqual(expect.arrayContaining(['conversion.created', 'transaction.sending_pix', 'conversion.completed']));
    expect(typeof out['forgery']).toBe('string');
    expect(out['forgery']).not.toBe('accepted');
  });

  it('runs them where `new Function` throws (a strict Content-Security-Policy): the same answers, schemas interpreted', { timeout: 60_000 }, async () => {
    const out = await scenarioIn(createContext(webGlobals(), { codeGeneration: { strings: false } }));
    expect(out).toMatchObject({
      nodeGlobals: [],
      retrieved: 'Worker',
      error: { code: 'user_not_found', status: 404, guard: true },
      lifecycle: 'completed',
      webhook: { header: true, type: 'conversion.completed' },
      refused: REFUSED,
      codegen: 'EvalError',
    });
    expect(out['forgery']).not.toBe('accepted');
  });

  it('the context really has no Node globals (so the check above can fail)', () => {
    const context = createContext(webGlobals());
    expect(runInContext("['Buffer', 'process', 'require'].map((n) => typeof globalThis[n])", context)).toEqual(['undefined', 'undefined', 'undefined']);
    expect(() => runInContext('Buffer.from("x")', context)).toThrow(/Buffer is not defined/);
  });
});
