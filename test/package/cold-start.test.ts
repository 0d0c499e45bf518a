// What `import('pix-usdt')` does at load, in fresh processes on the built files (issue 6, cold
// start; bench/cold-start.ts has the timings). Facts, not times: which schemas get built and
// which Node internals get loaded.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url).pathname;
const API_KEY = `sk_test_${'a'.repeat(32)}`;

function run(script: string, type: 'module' | 'commonjs'): Record<string, unknown> {
  const out = execFileSync(process.execPath, [`--input-type=${type}`, '-e', script], { cwd: root, encoding: 'utf8' });
  return JSON.parse(out) as Record<string, unknown>;
}

// zod calls `globalThis.__zod_globalConfig.postProcessor` with every schema it constructs (the
// hook of `zod/compile`); set before the import, it counts them.
const COUNT_SCHEMAS = `let built = 0; globalThis.__zod_globalConfig = { postProcessor: () => { built++; } };`;

const entries = [
  { name: 'the Node build (exports: node, import)', file: 'dist/node/index.js', type: 'module' as const },
  { name: 'the ESM build for bundlers and browsers', file: 'dist/index.js', type: 'module' as const },
  { name: 'the CommonJS build', file: 'dist/index.cjs', type: 'commonjs' as const },
];

describe.each(entries)('$name ($file)', ({ file, type }) => {
  it('is built (npm test builds before testing)', () => {
    expect(existsSync(`${root}${file}`), `${file} is missing: run npm run build`).toBe(true);
  });

  it('builds no schema, at load or when it checks an answer (answers are checked against shapes, without zod: issue 34)', () => {
    const load = type === 'module' ? `const m = await import(${JSON.stringify(`${root}${file}`)});` : `const m = require(${JSON.stringify(`${root}${file}`)});`;
    const script = `${COUNT_SCHEMAS} ${load}
      const client = new m.PixUsdt({
        apiKey: ${JSON.stringify(API_KEY)}, validation: 'strict', maxRetries: 0,
        fetch: async () => new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } }),
      });
      const atLoad = built;
      const outcome = await client.conversions.retrieve('c1').then(() => 'accepted', (e) => e.name);
      const afterUse = built;
      // The counter counts: one zod schema built here, by the zod the package resolves.
      ${type === 'module' ? "const z = await import('zod/mini');" : "const z = require('zod/mini');"}
      z.string();
      process.stdout.write(JSON.stringify({ atLoad, afterUse, outcome, probe: built - afterUse }));`;
    // CommonJS has no top-level await: the same script in an async function.
    const result = run(type === 'module' ? script : `(async () => { ${script} })();`, type);
    expect(result['atLoad']).toBe(0);
    // The answer is checked (an empty object is refused as a Conversion), and no schema was built
    // for it (more than ten were when the client checked answers with the zod models), while
    // the count does see a schema built.
    expect(result['outcome']).toBe('ResponseValidationError');
    expect(result['afterUse']).toBe(0);
    expect(result['probe']).toBeGreaterThan(0);
  });
});

describe('the Node build (dist/node/index.js)', () => {
  it('loads no WebCrypto at import, and generates Idempotency-Keys with uuid (v4) on first use', () => {
    const result = run(
      `const before = new Set(process.moduleLoadList);
      const { PixUsdt } = await import(${JSON.stringify(`${root}dist/node/index.js`)});
      let key;
      const client = new PixUsdt({
        apiKey: ${JSON.stringify(API_KEY)}, validation: 'off', maxRetries: 0,
        fetch: async (_url, init) => { key = init.headers['idempotency-key']; return new Response('{}', { status: 201, headers: { 'content-type': 'application/json' } }); },
      });
      const webcrypto = () => process.moduleLoadList.filter((m) => !before.has(m) && m.includes('crypto'));
      const atLoad = webcrypto();
      await client.quotes.accept('00000000-0000-4000-8000-000000000000');
      process.stdout.write(JSON.stringify({ atLoad, afterCall: webcrypto(), key }));`,
      'module',
    );
    expect(result['atLoad']).toEqual([]);
    expect(result['key']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The first key reads globalThis.crypto, which loads it: the check at load could have seen it.
    expect(result['afterCall']).toContain('NativeModule internal/crypto/webcrypto');
  });
});
