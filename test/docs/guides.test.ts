// The hand-written guides quote the code; these checks keep them from drifting from it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/docs/generated.js';
import * as sdk from '../../src/index.js';

const run = promisify(execFile);
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const GUIDES = ['docs/quickstart.md', 'docs/client.md', 'docs/state-machines.md'];

function codeBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1] as string);
}

describe('docs/quickstart.md', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-quickstart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('its first program runs as written and completes a conversion', async () => {
    const [program] = codeBlocks(read('docs/quickstart.md'), 'ts');
    expect(program).toContain("from 'pix-usdt/sandbox'");
    const file = join(dir, 'first-conversion.mts');
    writeFileSync(file, program as string);
    // Run from the repository root, where tsconfig maps `pix-usdt` to the sources, as the examples do.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', file], { cwd: ROOT, timeout: 60_000 });
    expect(stdout).toMatch(/^Pix code to pay: 000201/m);
    expect(stdout).toMatch(/^completed \d+\.\d+ USDT$/m);
    expect(stdout).toContain("'conversion.completed'");
  });

  it('names the two repository commands that exist in package.json', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    const text = read('docs/quickstart.md');
    for (const name of ['start', 'test']) {
      expect(scripts[name]).toBeDefined();
      expect(text).toContain(`npm ${name}`);
    }
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
  it.each(GUIDES)('%s links only to files that exist', (guide) => {
    const links = [...read(guide).matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1] as string).filter((l) => !/^[a-z]+:/.test(l));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (link.startsWith('api/')) continue; // built by `npm run docs`, not committed
      expect(existsSync(join(ROOT, dirname(guide), link)), `${guide} -> ${link}`).toBe(true);
    }
  });
});
