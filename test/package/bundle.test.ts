// The browser bundles partners get: built from the published dist/ files with esbuild, as a
// bundler would, then measured. Budgets and forbidden content come from issue 6 and DESIGN.md.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;

async function browserBundle(entry: string | { contents: string }): Promise<{ text: string; gzip: number; inputs: string[] }> {
  const result = await build({
    ...(typeof entry === 'string' ? { entryPoints: [entry] } : { stdin: { contents: entry.contents, resolveDir: root, loader: 'js' as const } }),
    absWorkingDir: root,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  return { text, gzip: gzipSync(text).length, inputs: Object.keys((result.metafile as Metafile).inputs) };
}

// Strings that only the sandbox engine (or its decimal library) contains.
const SANDBOX_MARKERS = ['[big.js]', 'notfound@sandbox.pix-usdt.com', 'idempotent-replayed'];

// What a partner's browser app ships: the client with its errors, or the webhook helpers. The
// whole `pix-usdt` entry also exports every request schema, which such an app tree-shakes away.
const cases = [
  {
    name: 'pix-usdt',
    dist: 'dist/index.js',
    src: 'src/index.ts',
    budget: 15 * 1024,
    app: "import { PixUsdt, isApiErrorCode, PixUsdtError } from './dist/index.js'; globalThis.app = [new PixUsdt({ apiKey: 'sk_test_' + 'a'.repeat(32) }), isApiErrorCode, PixUsdtError];",
  },
  {
    name: 'pix-usdt/webhooks',
    dist: 'dist/webhooks.js',
    src: 'src/webhooks/index.ts',
    budget: 3 * 1024,
    // A receiver that imports only constructEvent (the receiver kit tree-shakes away; see below).
    app: "import { constructEvent, isWebhookVerificationError } from './dist/webhooks.js'; globalThis.app = [constructEvent, isWebhookVerificationError];",
    // Receivers get our webhook modules alone: no models by value (zod), nothing else.
    onlySources: /^src\/webhooks\//,
  },
];

describe.each(cases)('browser bundle of $name', ({ dist, src, budget, app, onlySources }) => {
  it('is built (npm test builds before testing)', () => {
    expect(existsSync(new URL(dist, `file://${root}`)), `${dist} is missing: run npm run build`).toBe(true);
  });

  it(`stays within its gzipped budget in a partner's app`, async () => {
    const { gzip } = await browserBundle({ contents: app });
    expect(gzip).toBeGreaterThan(0);
    expect(gzip).toBeLessThanOrEqual(budget);
  });

  it('carries no sandbox code and no Node built-in', async () => {
    const { text } = await browserBundle(dist);
    for (const marker of SANDBOX_MARKERS) expect(text.includes(marker), `contains ${marker}`).toBe(false);
    // An import of a built-in; the webhooks entry may *name* node:crypto for process.getBuiltinModule.
    expect(/(?:\bfrom|\bimport\s*\(|\brequire\s*\()\s*["']node:/.exec(text)?.[0] ?? null).toBeNull();
    expect(/\brequire\(/.exec(text)?.[0] ?? null).toBeNull();
  });

  it('pulls in no source file of the sandbox, the server or msw', async () => {
    const { inputs } = await browserBundle(src);
    const leaks = inputs.filter((p) => /src\/(sandbox|server)\/|node_modules\/(msw|big\.js|preact|htm)\//.test(p));
    expect(leaks).toEqual([]);
    if (onlySources !== undefined) expect(inputs.filter((p) => !onlySources.test(p))).toEqual([]);
  });
});

// The receiver kit (createWebhookHandler, its stores and adapters, the order helper) lives in
// pix-usdt/webhooks too: a partner who imports only constructEvent must not ship it.
describe('the receiver kit in pix-usdt/webhooks', () => {
  // Strings only the kit carries: the SQL store's table and the handler's answer.
  const KIT_MARKERS = ['pix_usdt_webhook_events', 'in_progress'];
  const only = (names: string[]): { contents: string } => ({ contents: `import { ${names.join(', ')} } from './dist/webhooks.js'; globalThis.app = [${names.join(', ')}];` });

  it('tree-shakes away for constructEvent-only importers', async () => {
    const { text } = await browserBundle(only(['constructEvent', 'isWebhookVerificationError']));
    for (const marker of KIT_MARKERS) expect(text.includes(marker), `contains ${marker}`).toBe(false);
  });

  it('is in the whole entry (so its absence above means something), within 8 kB gzipped, from src/webhooks alone', async () => {
    const { text, gzip } = await browserBundle({ contents: "export * from './dist/webhooks.js';" });
    for (const marker of KIT_MARKERS) expect(text.includes(marker), `lacks ${marker}`).toBe(true);
    expect(gzip).toBeLessThanOrEqual(8 * 1024);
  });

  it('createWebhookHandler alone stays within 5 kB gzipped, without the SQL store or the adapters', async () => {
    const { text, gzip } = await browserBundle(only(['createWebhookHandler']));
    expect(gzip).toBeLessThanOrEqual(5 * 1024);
    expect(text.includes('pix_usdt_webhook_events')).toBe(false);
    expect(text.includes('expressWebhook')).toBe(false);
  });

  it('the order helper alone is under a kilobyte', async () => {
    const { gzip } = await browserBundle(only(['shouldApplySnapshot', 'isNewerState']));
    expect(gzip).toBeLessThanOrEqual(1024);
  });
});

// The inspector's console (preact + htm) ships in a chunk of its own that only its handler
// loads, on first use: never in the client entries, not even in the sandbox entry's own file.
describe('the inspector console', () => {
  const MARKER = 'Skip to content';
  const chunks = (): string[] => readdirSync(new URL('dist/', `file://${root}`)).filter((f) => /^ui-asset-.*\.c?js$/.test(f));

  it('is a chunk of its own, which carries the marker (so its absence elsewhere means something)', () => {
    expect(chunks().length).toBeGreaterThan(0);
    for (const chunk of chunks()) expect(readFileSync(new URL(`dist/${chunk}`, `file://${root}`), 'utf8')).toContain(MARKER);
  });

  it('reaches neither pix-usdt nor pix-usdt/webhooks, and is not inlined into the sandbox entry', async () => {
    for (const { dist } of cases) expect((await browserBundle(dist)).text.includes(MARKER), dist).toBe(false);
    for (const file of ['dist/sandbox.js', 'dist/sandbox.cjs']) expect(readFileSync(new URL(file, `file://${root}`), 'utf8').includes(MARKER), file).toBe(false);
  });
});

// The markers above prove nothing unless the sandbox bundle really carries them.
describe('sandbox markers', () => {
  it('are present in the sandbox bundle, so their absence above means something', async () => {
    const { text } = await browserBundle('dist/sandbox.js');
    for (const marker of SANDBOX_MARKERS) expect(text.includes(marker), `lacks ${marker}`).toBe(true);
  });
});

// pix-usdt/pix: the Pix toolkit without its QR renderer, and the QR encoder (uqr) only where
// brCodeToSvg is used. Measured with every export but brCodeToSvg imported by name.
describe('browser bundle of pix-usdt/pix', () => {
  const UQR_MARKER = 'String contains unencodable characters in alphanumeric mode';
  const app = (names: string[]): { contents: string } => ({ contents: `import { ${names.join(', ')} } from './dist/pix.js'; globalThis.app = [${names.join(', ')}];` });

  async function exportsBut(excluded: string[]): Promise<string[]> {
    const entry = (await import(new URL('dist/pix.js', `file://${root}`).href)) as Record<string, unknown>;
    return Object.keys(entry).filter((name) => !excluded.includes(name));
  }

  it('is built (npm test builds before testing)', () => {
    expect(existsSync(new URL('dist/pix.js', `file://${root}`)), 'dist/pix.js is missing: run npm run build').toBe(true);
  });

  // Issue 14's budget: 3 kB. Test-data generators are in pix-usdt/pix/testing (docs/decisions.md, "Size").
  it('without the QR renderer stays within 3 kB gzipped, and carries no QR encoder', async () => {
    const names = await exportsBut(['brCodeToSvg']);
    expect(names).toEqual(expect.arrayContaining(['validateBrCode', 'buildBrCode', 'validatePixKey', 'parseEndToEndId', 'formatCnpj', 'maskCpf']));
    const { text, gzip } = await browserBundle(app(names));
    expect(gzip).toBeLessThanOrEqual(3 * 1024);
    expect(text.includes(UQR_MARKER)).toBe(false);
  });

  it('keeps the test-data generators in pix-usdt/pix/testing, out of the main entry', async () => {
    expect(await exportsBut([])).not.toEqual(expect.arrayContaining(['generateCpf']));
    const testing = (await import(new URL('dist/pix-testing.js', `file://${root}`).href)) as Record<string, unknown>;
    expect(Object.keys(testing).sort()).toEqual(['generateCnpj', 'generateCpf']);
    const { text } = await browserBundle({ contents: "import { generateCnpj } from './dist/pix-testing.js'; globalThis.app = generateCnpj;" });
    expect(text).toContain('ABCDEFGHIJKLMNOPQRSTUVWXYZ');
    const { text: main } = await browserBundle(app(await exportsBut(['brCodeToSvg'])));
    expect(main.includes('ABCDEFGHIJKLMNOPQRSTUVWXYZ')).toBe(false);
  });

  it("a checkout's and a form's imports (validateBrCode, validatePixKey) stay within 3 kB gzipped", async () => {
    const { gzip } = await browserBundle(app(['validateBrCode', 'parseBrCode', 'validatePixKey', 'detectPixKeyType', 'isValidCpf', 'isValidCnpj', 'maskCpf']));
    expect(gzip).toBeLessThanOrEqual(3 * 1024);
  });

  it('validatePixKey alone costs about a kilobyte', async () => {
    const { text, gzip } = await browserBundle(app(['validatePixKey']));
    expect(gzip).toBeLessThanOrEqual(1024);
    // Nor the BR Code reader: its reasons are not in the bundle.
    expect(text.includes('invalid_merchant_name')).toBe(false);
    expect(text.includes(UQR_MARKER)).toBe(false);
  });

  it('brCodeToSvg brings the QR encoder (so its absence above means something), within 8 kB gzipped', async () => {
    const { text, gzip } = await browserBundle(app(['brCodeToSvg']));
    expect(text.includes(UQR_MARKER)).toBe(true);
    expect(gzip).toBeLessThanOrEqual(8 * 1024);
  });

  it('carries no sandbox code, no Node built-in and no require', async () => {
    const { text, inputs } = await browserBundle('dist/pix.js');
    for (const marker of SANDBOX_MARKERS) expect(text.includes(marker), `contains ${marker}`).toBe(false);
    expect(/(?:\bfrom|\bimport\s*\(|\brequire\s*\()\s*["']node:/.exec(text)?.[0] ?? null).toBeNull();
    // The sandbox uses the same modules (issue 14, one implementation), so the build splits them
    // into a chunk that both entries import; the markers above prove no sandbox code came along.
    expect(inputs.filter((p) => !/^dist\/(?:pix|chunk-[0-9A-Z]+)\.js$|node_modules\/uqr\//.test(p))).toEqual([]);
  });
});
