// A partner's project, against the packed tarball (issue 10): `npm pack`, the tarball unpacked
// into a scratch project's node_modules (its dependencies linked from this repository's
// node_modules: offline, and the same versions npm installed here), then a consumer compiled
// under each module resolution partners use, with `skipLibCheck: false` so that our .d.ts files
// are checked too, by TypeScript 5 and TypeScript 7, and the compiled ESM and CommonJS consumers
// run. The consumer imports every entry of package.json `exports` (new entries are covered
// without editing this file) and exercises client.on(...), the sandbox and the webhooks.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { x as untar } from 'tar';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { entrySpecifiers, jsonEntries, packShared, root, type Packed } from './pack.js';

const COMPILERS = {
  'TypeScript 5': join(root, 'node_modules/typescript/bin/tsc'),
  'TypeScript 7': join(root, 'node_modules/typescript7/bin/tsc'),
} as const;

type Mode = 'nodenext-esm' | 'nodenext-cjs' | 'bundler' | 'node10';

// TypeScript 7 removed moduleResolution node10 (TS5108: "has been removed"): its partners use the others.
const COMPILER_MODES: Record<keyof typeof COMPILERS, Mode[]> = {
  'TypeScript 5': ['nodenext-esm', 'nodenext-cjs', 'bundler', 'node10'],
  'TypeScript 7': ['nodenext-esm', 'nodenext-cjs', 'bundler'],
};

const MODES: Record<Mode, { type: 'module' | 'commonjs'; compilerOptions: Record<string, unknown>; runs: boolean }> = {
  'nodenext-esm': { type: 'module', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' }, runs: true },
  'nodenext-cjs': { type: 'commonjs', compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' }, runs: true },
  bundler: { type: 'module', compilerOptions: { module: 'esnext', moduleResolution: 'bundler', noEmit: true }, runs: false },
  // Subpaths resolve through package.json `typesVersions` here (node10 ignores `exports`): a new
  // entry needs a line there. esModuleInterop, as `tsc --init` sets it: without it zod's own .d.cts files do not compile (TS1259).
  node10: { type: 'commonjs', compilerOptions: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true, noEmit: true }, runs: false },
};

/** The consumer: typed uses of the three main entries, and every entry imported. */
function consumerSource(entries: string[]): string {
  const imports = entries.map((specifier, i) => `import * as entry${i} from '${specifier}';`).join('\n');
  const list = entries.map((specifier, i) => `  [${JSON.stringify(specifier)}, Object.keys(entry${i}).length],`).join('\n');
  return `import { PixUsdt, type ResponseEvent } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { constructEvent, signPayload } from 'pix-usdt/webhooks';
${imports}

const entries: Array<[string, number]> = [
${list}
];

async function main(): Promise<void> {
  const sandbox = createSandbox({ now: '2026-11-21T12:00:00Z' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
  const statuses: number[] = [];
  client.on('response', (event: ResponseEvent) => {
    statuses.push(event.status);
  });
  const user = await client.users.create({ external_id: 'consumer', name: 'Consumer', document_type: 'cpf', document_number: '529.982.247-25' });
  const secret = 'whsec_consumer_secret_0123456789abcdef';
  const raw = JSON.stringify({ id: 'evt_1', type: 'user.created', created_at: '2026-11-21T12:00:00Z', data: { object: user } });
  const timestamp = Math.floor(Date.parse('2026-11-21T12:00:00Z') / 1000);
  const header = await signPayload(raw, secret, { timestamp });
  const event = await constructEvent(raw, { 'x-service-signature': header }, secret, { now: new Date('2026-11-21T12:01:00Z') });
  // close() and explicit resource management: the symbols type-check without lib esnext.disposable.
  await sandbox.close();
  const disposed = createSandbox();
  disposed[Symbol.dispose]();
  await createSandbox()[Symbol.asyncDispose]();
  const closed = await sandbox.fetch('/v1/users').then(() => 'open', (error: unknown) => String((error as { cause?: unknown }).cause));
  console.log(JSON.stringify({ userId: user.id, statuses, verified: event.type, entries, closed }));
}

// No Node types in the consumer (browser partners have none): an unhandled rejection exits 1.
void main();
`;
}

let packed: Packed;
let scratch: string;
let entries: string[];

beforeAll(async () => {
  packed = await packShared();
  entries = entrySpecifiers(packed.manifest);
  scratch = mkdtempSync(join(tmpdir(), 'pix-usdt-consumer-'));
  const modules = join(scratch, 'node_modules');
  // The tarball as npm unpacks it (its `package/` folder becomes node_modules/pix-usdt).
  mkdirSync(join(modules, packed.manifest.name), { recursive: true });
  await untar({ file: packed.tarball, cwd: join(modules, packed.manifest.name), strip: 1 });
  // Its dependencies and peers, from this repository. No @types/node: the typings must not need it.
  const linked = [...Object.keys(packed.manifest.dependencies ?? {}), ...Object.keys(packed.manifest.peerDependencies ?? {})];
  for (const name of linked) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(join(root, 'node_modules', name), join(modules, name), 'dir');
  }
  for (const [mode, { type, compilerOptions }] of Object.entries(MODES)) {
    const dir = join(scratch, mode);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `consumer-${mode}`, private: true, type }));
    writeFileSync(join(dir, 'index.ts'), consumerSource(entries));
    for (const compiler of Object.keys(COMPILERS) as Array<keyof typeof COMPILERS>) {
      if (!COMPILER_MODES[compiler].includes(mode as Mode)) continue;
      const tsconfig = {
        compilerOptions: {
          target: 'es2022',
          lib: ['es2022', 'dom'],
          types: [],
          strict: true,
          skipLibCheck: false,
          outDir: `out-${compiler.replace(/\D/g, '')}`,
          ...compilerOptions,
        },
        files: ['index.ts'],
      };
      writeFileSync(join(dir, `tsconfig.ts${compiler.replace(/\D/g, '')}.json`), JSON.stringify(tsconfig, null, 2));
    }
  }
}, 120_000);

afterAll(() => {
  // The tarball is the run's (removed with its scratch folder); the consumers' folder is ours.
  if (scratch && !process.env['KEEP_SCRATCH']) rmSync(scratch, { recursive: true, force: true });
});

function compile(compiler: keyof typeof COMPILERS, mode: Mode): { status: number | null; output: string } {
  const dir = join(scratch, mode);
  const result = spawnSync(process.execPath, [COMPILERS[compiler], '-p', `tsconfig.ts${compiler.replace(/\D/g, '')}.json`], { cwd: dir, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

describe.each(Object.keys(COMPILERS) as Array<keyof typeof COMPILERS>)('a consumer of the packed tarball, %s', (compiler) => {
  it.each(COMPILER_MODES[compiler])('compiles as a %s consumer with skipLibCheck: false, and runs if it emits', (mode) => {
    const { status, output } = compile(compiler, mode);
    expect(output).toBe('');
    expect(status).toBe(0);
    if (!MODES[mode].runs) return;
    // The compiled consumer runs on this node, resolving the package as Node does.
    const out = execFileSync(process.execPath, [join(scratch, mode, `out-${compiler.replace(/\D/g, '')}`, 'index.js')], { encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop()!) as { userId: string; statuses: number[]; verified: string; entries: Array<[string, number]>; closed: string };
    expect(result.userId).toMatch(/^[0-9a-f-]{36}$/);
    expect(result.statuses).toEqual([201]);
    expect(result.verified).toBe('user.created');
    expect(result.closed).toMatch(/^SandboxClosedError: fetch: this sandbox is closed/);
    expect(result.entries.map(([specifier]) => specifier)).toEqual(entries);
    for (const [specifier, exported] of result.entries) expect(exported, specifier).toBeGreaterThan(0);
  }, 120_000);
});

// Issue 36: the README's first example failed as pasted (top-level await in a CommonJS project
// under tsx; a quote of a user whose KYC nobody approved). It runs here as a user runs it: the
// first ```ts block of README.md saved as quick.ts, `npx tsx quick.ts` (the tsx a user
// installs beside it), in a default project of `npm init -y` and in a "type": "module" one.
describe("README.md's first example, from the packed tarball", () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] as string;
  const projects = {
    // `npm init -y` writes no "type" (npm 10) or "type": "commonjs" (npm 11): CommonJS either way.
    commonjs: { name: 'readme-cjs', version: '1.0.0', main: 'index.js', license: 'ISC' },
    module: { name: 'readme-esm', version: '1.0.0', main: 'index.js', license: 'ISC', type: 'module' },
  };

  it('is the one the README tells to save as quick.ts and run with npx tsx quick.ts', () => {
    expect(readme).toMatch(/Save it\s+as `quick\.ts` and run `npx tsx quick\.ts`/);
    expect(readme.indexOf(example)).toBeLessThan(readme.indexOf('```sh\nnpx pix-usdt-sandbox serve'));
  });

  // Side by side: each is a tsx start of a few seconds.
  it.concurrent.each(Object.keys(projects) as Array<keyof typeof projects>)('runs as pasted in a %s project: a conversion awaiting its Pix', async (kind) => {
    const dir = join(scratch, `readme-${kind}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify(projects[kind], null, 2));
    writeFileSync(join(dir, 'quick.ts'), example);
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'quick.ts'], { cwd: dir, timeout: 60_000 });
    expect(stdout).toMatch(/^awaiting_deposit 000201.+$/m);
  }, 90_000);
});

// Issue 36: the scenario files' `$schema` and the OpenAPI document are in the package, under
// the names `exports` gives them, byte for byte the repository's.
describe('the JSON documents of the package', () => {
  it('openapi.json and scenario-file.schema.json resolve through exports to the repository\'s files', () => {
    const require = createRequire(join(scratch, 'nodenext-cjs', 'index.js'));
    const documents = jsonEntries(packed.manifest);
    expect(documents.map((d) => d.specifier).sort()).toEqual(['pix-usdt/openapi.json', 'pix-usdt/scenario-file.schema.json']);
    for (const { specifier, file } of documents) {
      const shipped = require.resolve(specifier);
      expect(shipped, specifier).toBe(join(scratch, 'node_modules', 'pix-usdt', file));
      expect(readFileSync(shipped, 'utf8'), specifier).toBe(readFileSync(join(root, file), 'utf8'));
      expect(Object.keys(require(specifier) as object).length, specifier).toBeGreaterThan(2);
    }
  });

  it("the docs' $schema is the shipped schema's path in a project", () => {
    const testing = readFileSync(join(root, 'docs/testing.md'), 'utf8');
    const schema = /"\$schema": "([^"]+)"/.exec(testing)?.[1];
    expect(schema).toBe('./node_modules/pix-usdt/docs/scenario-file.schema.json');
    expect(readFileSync(join(scratch, schema as string), 'utf8')).toBe(readFileSync(join(root, 'docs/scenario-file.schema.json'), 'utf8'));
  });
});

