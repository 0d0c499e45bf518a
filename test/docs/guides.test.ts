// The hand-written guides quote the code; these checks keep them from drifting from it: every ts
// block typechecks against the built package, the quick start runs as written in a fresh project,
// the defaults and schedules they quote are the code's, and their links resolve.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/docs/generated.js';
import * as sdk from '../../src/index.js';
import { createSandbox } from '../../src/sandbox/index.js';
import { packShared } from '../package/pack.js';
import { type Block, checkedFiles, collectBlocks, typecheckBlocks } from './blocks.js';

const run = promisify(execFile);
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const PAGES = checkedFiles(ROOT);

function codeBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
}

const scratches: string[] = [];
afterAll(() => {
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratches.push(dir);
  return dir;
}

describe('the ts blocks of README.md, CONTRIBUTING.md and docs/*.md', () => {
  it('typecheck against the built package, fragments with their preamble (CONTRIBUTING.md, "Docs that run")', () => {
    const blocks = collectBlocks(ROOT, PAGES);
    expect(blocks.length).toBeGreaterThan(40);
    expect(blocks.filter((b) => b.preamble !== '').length).toBeGreaterThan(20);
    // Probes, checked in the same program: the check reports a wrong block at its line, and a preamble works.
    const probes: Block[] = [
      { file: '(probe)', line: 7, preamble: '', code: "const total: number = 'not a number';\n" },
      { file: '(probe)', line: 20, preamble: "import type { PixUsdt } from 'pix-usdt';\ndeclare const client: PixUsdt;\n", code: 'await client.users.list({ kyc_status: "approved" });\n' },
    ];
    const errors = typecheckBlocks(ROOT, [...blocks, ...probes], scratch('pix-usdt-docs-'));
    const probed = errors.filter((e) => e.where.startsWith('(probe)'));
    expect(probed).toEqual([{ where: '(probe):7', message: expect.stringMatching(/^TS2322 Type 'string' is not assignable to type 'number'/) }]);
    expect(errors.filter((e) => !probed.includes(e)).map((e) => `${e.where}: ${e.message}`)).toEqual([]);
  }, 180_000);
});

describe('docs/quickstart.md', () => {
  it('runs as written in a fresh `npm init -y` project with the packed tarball, and completes both conversions', async () => {
    const packed = await packShared();
    const text = read('docs/quickstart.md');
    const [install] = codeBlocks(text, 'sh');
    const [program] = codeBlocks(text, 'ts');
    const project = /^mkdir (\S+) && cd \1$/m.exec(install ?? '')?.[1];
    const header = /^\/\/ (\S+) \(run with: (.+)\)$/m.exec(program ?? '');
    expect(project, 'the install block makes a folder: mkdir X && cd X').toBeDefined();
    expect(header, 'the program names its file and its command on its first line').not.toBeNull();
    const [, file, command] = header as RegExpExecArray;
    expect(install).toMatch(/^npm init -y$/m);
    // As written, with the tarball in place of the registry's pix-usdt.
    const script = (install as string).replace(/^npm install pix-usdt$/m, `npm install ${packed.tarball}`);
    expect(script).not.toBe(install);
    const root = scratch('pix-usdt-quickstart-');
    const env = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true', npm_config_loglevel: 'error' };
    await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: root, env, timeout: 180_000 });
    const dir = join(root, project as string);
    expect(JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type ?? 'commonjs').toBe('commonjs');
    writeFileSync(join(dir, file as string), program as string);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', command as string], { cwd: dir, env, timeout: 120_000 });
    expect(stdout).toMatch(/^Pix code to pay: 000201/m);
    expect(stdout).toMatch(/^completed \d+\.\d+ USDT$/m);
    expect(stdout).toMatch(/^deposit 20\.0+ USDT to 0x[0-9a-fA-F]{40}$/m);
    expect(stdout).toMatch(/^offramp completed \d+\.\d{2} BRL$/m);
    expect(stdout).toContain("'conversion.completed'");
  }, 400_000);

  it('names the two repository commands that exist in package.json', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const text = read('docs/quickstart.md');
    for (const name of ['start', 'test']) {
      expect(scripts[name]).toBeDefined();
      expect(text).toContain(`npm ${name}`);
    }
  });
});

describe('lines found stale (issue 27)', () => {
  it('no page says a tenant\'s timers wait for a request', () => {
    for (const page of PAGES) expect(read(page), page).not.toMatch(/(fires|fire) (its|theirs|their) (due )?timers (when it receives a|on their next) request/);
  });

  it('docs/sandbox.md: a new tenant starts at the default tenant\'s time, then moves on its own, as the code does', async () => {
    expect(read('docs/sandbox.md')).toMatch(/starts at\s+the default tenant's time/);
    const sandbox = createSandbox({ now: '2026-01-01T00:00:00Z' });
    await sandbox.clock.advance({ days: 1 });
    const tenant = sandbox.createTenant();
    expect(tenant.clock.now()).toEqual(sandbox.clock.now());
    await tenant.clock.advance({ days: 2 });
    expect(sandbox.clock.now().toISOString()).toBe('2026-01-02T00:00:00.000Z');
  });

  it('the offramp body, with its deposit_network, is shown in the client guide and the quick start', () => {
    for (const page of ['docs/client.md', 'docs/quickstart.md']) expect(codeBlocks(read(page), 'ts').join('\n'), page).toMatch(/deposit_network: 'polygon'/);
  });
});

describe('docs/client.md', () => {
  const text = read('docs/client.md');
  const row = (option: string): string => text.split('\n').find((l) => l.startsWith(`| \`${option}\``)) ?? '';

  it('gives the defaults the code has', () => {
    const { maxRetries, timeoutMs, deadlineMs, validation, dangerouslyAllowBrowser } = sdk.DEFAULT_OPTIONS;
    expect(row('maxRetries')).toContain(`\`${maxRetries}\``);
    expect(row('timeoutMs')).toContain(`\`${timeoutMs}\``);
    expect(row('deadlineMs')).toContain(`\`${deadlineMs}\``);
    expect(row('validation')).toContain(`\`'${validation}'\``);
    expect(row('dangerouslyAllowBrowser')).toContain(`\`${dangerouslyAllowBrowser}\``);
    expect(row('baseUrl')).toContain(sdk.SANDBOX_BASE_URL);
    expect(row('baseUrl')).toContain(sdk.PRODUCTION_BASE_URL);
  });

  it('gives the retry schedules of RETRY_POLICY', () => {
    const duration = (ms: number): string => (ms < 1_000 ? `${ms} ms` : `${ms / 1_000} s`);
    expect(text).toContain(sdk.RETRY_POLICY.internalError.waitsMs.map(duration).join(', '));
    expect(text).toContain(`capped at ${duration(sdk.RETRY_POLICY.transient.capMs)}`);
    const never = text.split('\n').find((l) => l.includes('| never |') && l.includes('400')) ?? '';
    for (const status of sdk.RETRY_POLICY.neverRetryStatuses) expect(never).toContain(String(status));
  });

  it('names every error class the package exports', () => {
    const classes = Object.entries(sdk)
      .filter(([name, value]) => typeof value === 'function' && /Error$/.test(name) && /^class /.test(Function.prototype.toString.call(value)))
      .map(([name]) => name);
    expect(classes.length).toBeGreaterThan(10);
    for (const name of classes) expect(text, name).toContain(`\`${name}\``);
  });
});

describe('links between the docs', () => {
  it.each(PAGES.filter((page) => page.startsWith('docs/')))('%s links only to files that exist', (page) => {
    const links = [...read(page).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
    for (const link of links) {
      if (link.startsWith('api/')) continue; // built by `npm run docs`, not committed
      expect(existsSync(join(ROOT, dirname(page), link)), `${page} -> ${link}`).toBe(true);
    }
  });
});
