/**
 * `pix-usdt-sandbox conformance` end to end: the built binary against the built sandbox server.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox } from 'pix-usdt/sandbox';
import { diffCassette } from 'pix-usdt/parity';
import { exitCode, run, serve, stopAll } from '../server/helpers.js';

afterEach(() => stopAll());

describe('pix-usdt-sandbox conformance', () => {
  it('against the sandbox server: exit 0, the JSON report on stdout, JUnit in the file, progress on stderr', async () => {
    const { ready } = await serve();
    const junit = join(mkdtempSync(join(tmpdir(), 'parity-')), 'report.xml');
    const cassette = join(junit, '..', 'run.cassette.json');
    const child = run(['conformance', '--url', ready.url, '--api-key', ready.api_key, '--no-pacing', '--json', '--junit', junit, '--record', cassette, '--scenario', 'users.', '--scenario', 'errors.request']);
    expect(await exitCode(child, 60_000)).toBe(0);
    const report = JSON.parse(child.stdout()) as { ok: boolean; tenant: { made: boolean; id: string | null }; scenarios: Array<{ id: string; verdict: string }> };
    expect(report.ok).toBe(true);
    expect(report.scenarios.map((s) => [s.id, s.verdict])).toEqual([['errors.request', 'pass'], ['users.create', 'pass'], ['users.errors', 'pass'], ['users.kyc', 'pass']]);
    // In a tenant made for the run (issue 36): the key's tenant has no user of it.
    expect(report.tenant).toEqual({ made: true, id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(report.tenant.id).not.toBe(ready.tenant_id);
    const users = (await (await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${ready.api_key}` } })).json()) as { data: unknown[] };
    expect(users.data).toEqual([]);
    expect(child.stderr()).toContain('[4/4] pass    users.kyc');
    expect(readFileSync(junit, 'utf8')).toMatch(/<testsuites name="pix-usdt conformance" tests="4" failures="0" errors="0"/);
    // The recorded run agrees with a fresh in-process sandbox, and holds no secret.
    const recorded = readFileSync(cassette, 'utf8');
    expect(recorded.includes(ready.api_key.slice(8))).toBe(false);
    const diff = await diffCassette(recorded, createSandbox());
    expect(diff.exchanges.length).toBeGreaterThan(10);
    expect(diff.exchanges.filter((e) => e.differences.length > 0)).toEqual([]);
    rmSync(dirname(junit), { recursive: true, force: true });
  });

  it('refuses a live key with exit 2 and says why; --help documents the options', async () => {
    const child = run(['conformance', '--base-url', 'https://api.example.com', '--api-key', `sk_live_${'a'.repeat(32)}`, '--json']);
    expect(await exitCode(child)).toBe(2);
    expect(child.stderr()).toMatch(/Refusing a sk_live_ key/);
    // --json: the failure on stdout too, with its reason.
    expect(JSON.parse(child.stdout())).toEqual({ ok: false, error: { code: 'usage_error', message: expect.stringMatching(/^Refusing a sk_live_ key/) } });
    const help = run(['conformance', '--help']);
    expect(await exitCode(help)).toBe(0);
    // commander's help, as every command's: --url first, its older name --base-url kept.
    expect(help.stdout()).toMatch(/^\s+--url <URL>/m);
    for (const option of ['--url', '--base-url', '--api-key', '--receiver-url', '--receiver-port', '--json', '--junit', '--record', '--scenario', '--rate-limit', '--no-pacing', '--key-tenant']) expect(help.stdout()).toContain(option);
    const missing = run(['conformance', '--base-url', 'https://x.test'], { PIX_USDT_API_KEY: '' });
    expect(await exitCode(missing)).toBe(2);
  });
});
