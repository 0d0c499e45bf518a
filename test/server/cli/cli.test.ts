/**
 * The command line of the real binary: help, usage errors and their exit codes.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, exitCode, run, serve, stopAll } from '../helpers.js';

afterEach(stopAll);

const FLAGS = ['--port', '--host', '--https', '--cert', '--key', '--seed', '--environment', '--insecure-webhooks', '--webhook-allow', '--cors-origin', '--shared-platform-limits', '--help'];

describe('pix-usdt-sandbox --help', () => {
  it.each([[['--help']], [['serve', '--help']], [['-h']], [[]]])('%j prints every flag on stdout and exits 0', async (args) => {
    const child = run(args);
    expect(await exitCode(child)).toBe(0);
    for (const flag of FLAGS) expect(child.stdout()).toContain(flag);
    expect(child.stdout()).toContain('pix-usdt-sandbox serve');
    expect(child.stderr()).toBe('');
  });

  it('--version prints the package version', async () => {
    const child = run(['--version']);
    expect(await exitCode(child)).toBe(0);
    expect(child.stdout().trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('usage errors exit 2 with a clear message on stderr', () => {
  // The binary for a few; every other case is in args.test.ts, without a process each.
  it.each([
    [['serve', '--prot', '4010'], /--prot/],
    [['serve', '--port', 'abc'], /--port must be an integer/],
    [['start'], /Unknown command/],
  ])('%j', async (args, message) => {
    const child = run(args);
    expect(await exitCode(child)).toBe(2);
    expect(child.stderr()).toMatch(message);
    expect(child.stdout()).toBe('');
  });

  it.each(['0.0.0.0', 'example.com'])('plain HTTP on the non-loopback host %s is refused', async (host) => {
    const child = run(['serve', '--port', '0', '--host', host]);
    expect(await exitCode(child)).toBe(2);
    expect(child.stderr()).toMatch(/loopback/);
    expect(child.stderr()).toMatch(/--https/);
    expect(child.stdout()).toBe('');
  });
});

describe('start-up failures exit 1', () => {
  it('a port in use', async () => {
    const first = await serve();
    const port = new URL(first.ready.url).port;
    const second = run(['serve', '--port', port]);
    expect(await exitCode(second)).toBe(1);
    expect(second.stderr()).toMatch(new RegExp(`port ${port} is in use`));
    expect(second.stdout()).toBe('');
  });

  it('a certificate file that cannot be read', async () => {
    const child = run(['serve', '--port', '0', '--https', '--cert', '/nonexistent/cert.pem', '--key', '/nonexistent/key.pem']);
    expect(await exitCode(child)).toBe(1);
    expect(child.stderr()).toMatch(/Cannot read --cert \/nonexistent\/cert.pem: ENOENT/);
  });
});

describe('the commands that talk to a server', () => {
  // Well formed, and a key of no server.
  const KEY = `sk_test_${'a'.repeat(32)}`;

  it.each([['listen'], ['trigger'], ['logs', 'tail'], ['resend']])('%j --help: exit 0, the connection flags and --json', async (...words) => {
    const child = run([...words, '--help']);
    expect(await exitCode(child)).toBe(0);
    for (const flag of ['--url', '--api-key', '--json', 'PIX_USDT_SANDBOX_URL', 'PIX_USDT_API_KEY']) expect(child.stdout()).toContain(flag);
    expect(child.stdout()).toContain(`pix-usdt-sandbox ${words.join(' ')}`);
  });

  it('the top-level help lists every command and the exit codes', async () => {
    const child = run(['--help']);
    expect(await exitCode(child)).toBe(0);
    for (const command of ['serve', 'listen', 'trigger', 'logs tail', 'resend']) expect(child.stdout()).toContain(`pix-usdt-sandbox ${command}`);
    // Wrapped to the terminal (80 columns when stdout is a pipe): the words, wherever the lines break.
    expect(child.stdout().replace(/\s+/g, ' ')).toMatch(/Exit codes: 0 ok, 1 .* 2 usage error, 3 the server cannot be reached, 4 the server refused the API key/);
  });

  it.each([
    [['listen'], /required option '--forward-to <URL>' not specified/i],
    [['listen', '--forward-to', 'ftp://x', '--api-key', KEY], /--forward-to must be an http:\/\/ or https:\/\/ URL/],
    [['listen', '--forward-to', 'http://localhost:3000', '--events', 'conversion.nope', '--api-key', KEY], /--events: "conversion.nope" names no event kind/],
    [['trigger', 'conversion.completed'], /An API key is needed: --api-key KEY or PIX_USDT_API_KEY/],
    [['trigger', 'conversion.nope', '--api-key', KEY], /Unknown scenario "conversion.nope"; trigger --list/],
    [['trigger', 'conversion.completed', '--reason', 'x', '--api-key', KEY], /--reason is for conversion.standby and conversion.failed/],
    [['trigger', 'conversion.standby', '--reason', 'wrong_address', '--direction', 'onramp', '--api-key', KEY], /offramps only/],
    [['trigger', 'conversion.completed', '--amount', '1e3', '--api-key', KEY], /--amount must be a positive decimal/],
    [['logs', 'tail', '--status', '4x', '--api-key', KEY], /--status takes codes or classes/],
    [['logs'], /Name a subcommand/],
    [['resend', '--api-key', KEY], /Give a delivery id/],
    [['resend', 'abc', '--failed', '--api-key', KEY], /not both/],
    [['resend', '--failed', '--api-key', 'sk_test_short'], /The API key is malformed/],
  ])('%j: usage error, exit 2', async (args, message) => {
    const child = run(args, { PIX_USDT_API_KEY: '', PIX_USDT_SANDBOX_URL: '' });
    expect(await exitCode(child)).toBe(2);
    expect(child.stderr()).toMatch(message);
    expect(child.stdout()).toBe('');
  });

  it('trigger --list --json needs no server: one line per scenario', async () => {
    const child = run(['trigger', '--list', '--json']);
    expect(await exitCode(child)).toBe(0);
    const names = child.stdout().trim().split('\n').map((l) => (JSON.parse(l) as { scenario: string }).scenario);
    expect(names).toEqual(expect.arrayContaining(['conversion.completed', 'conversion.standby', 'conversion.abandoned', 'user.kyc_approved']));
  });

  it('nothing listens at --url: exit 3, and what to do', async () => {
    // A port that was free a moment ago: nothing listens there.
    const url = await deadUrl();
    // With --json (issue 36), every command's failure is a JSON line on stdout too: "ok": false and its reason.
    const commands = [['trigger', 'user.kyc_pending'], ['resend', '--failed'], ['logs', 'tail'], ['listen', '--forward-to', 'http://127.0.0.1:9/hooks']];
    const children = commands.map((args) => run([...args, '--url', url, '--api-key', KEY, '--json']));
    for (const [i, child] of children.entries()) {
      const args = commands[i] as string[];
      expect(await exitCode(child), args.join(' ')).toBe(3);
      expect(child.stderr()).toMatch(/cannot reach the server at .*serve` running there\? Set --url or PIX_USDT_SANDBOX_URL/);
      const line = JSON.parse(child.stdout()) as { ok: boolean; error: { code: string; message: string } };
      expect(line, args.join(' ')).toMatchObject({ ok: false, error: { code: 'server_unreachable', message: expect.stringContaining(`cannot reach the server at ${url}`) } });
    }
  });

  it('--json: a refused key and a usage error carry their reason on stdout', async () => {
    const { ready } = await serve();
    const refused = run(['trigger', 'user.kyc_pending', '--json'], { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: KEY });
    const usage = run(['trigger', 'conversion.nope', '--json', '--api-key', KEY]);
    expect(await exitCode(refused)).toBe(4);
    expect(JSON.parse(refused.stdout())).toEqual({ scenario: 'user.kyc_pending', created: [], ok: false, error: { code: expect.any(String), message: expect.any(String), status: 401, request_id: expect.any(String) } });
    expect(refused.stdout()).not.toContain(KEY);
    expect(await exitCode(usage)).toBe(2);
    expect(JSON.parse(usage.stdout())).toEqual({ ok: false, error: { code: 'usage_error', message: expect.stringMatching(/Unknown scenario "conversion.nope"/) } });
  });

  it('a key the server refuses: exit 4', async () => {
    const { ready } = await serve();
    const child = run(['trigger', 'user.kyc_pending'], { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: KEY });
    expect(await exitCode(child)).toBe(4);
    expect(child.stderr()).toMatch(/refused the API key/);
  });
});

describe('what the binary loads to start', () => {
  it('selfsigned only when a certificate is generated (its import cost about a third of every start)', () => {
    const code = readFileSync(CLI, 'utf8');
    expect(code).not.toMatch(/\bfrom\s*["']selfsigned["']/);
    expect(code).toMatch(/\bimport\(\s*["']selfsigned["']\s*\)/);
  });
});

/** The URL of a port that was free a moment ago (listened on, then closed). */
function deadUrl(): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(`http://127.0.0.1:${port}`));
    });
    server.once('error', reject);
  });
}
