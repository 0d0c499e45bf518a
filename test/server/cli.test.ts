/**
 * The command line of the real binary: help, usage errors and their exit codes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { exitCode, run, serve, stopAll } from './helpers.js';

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
