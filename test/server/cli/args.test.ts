/**
 * Command-line parsing, without a process: every usage error and the normalized options.
 */
import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '../../../src/client/options.js';
import { DEFAULT_HOST, DEFAULT_PORT, UsageError, parseCommand } from '../../../src/server/cli/program.js';

function usageError(args: string[]): string {
  try {
    parseCommand(args);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error(`${JSON.stringify(args)} was accepted`);
}

describe('parseCommand', () => {
  it("serve with no flag: the defaults, as the server's options (the sandbox's among them)", () => {
    expect(parseCommand(['serve'])).toEqual({
      kind: 'serve',
      options: { port: DEFAULT_PORT, host: DEFAULT_HOST, sandbox: { environment: 'sandbox' }, webhooks: { insecure: false, allow: [] }, corsOrigins: [] },
    });
  });

  it('every flag', () => {
    const command = parseCommand(['serve', '--port', '0', '--host', '0.0.0.0', '--https', '--cert', 'c.pem', '--key', 'k.pem', '--seed=-12', '--environment', 'production', '--insecure-webhooks', '--webhook-allow', '10.0.0.0/8', '--webhook-allow=hooks.internal', '--cors-origin', 'https://App.Example:443', '--cors-origin=*', '--shared-platform-limits', '--data', './sandbox-data']);
    expect(command).toEqual({
      kind: 'serve',
      options: {
        port: 0,
        host: '0.0.0.0',
        tls: { certFile: 'c.pem', keyFile: 'k.pem' },
        sandbox: { environment: 'production', seed: -12, limits: { platformScope: 'shared' } },
        webhooks: { insecure: true, allow: ['10.0.0.0/8', 'hooks.internal'] },
        corsOrigins: ['https://app.example', '*'],
        data: './sandbox-data',
      },
    });
  });

  it('--https without --cert/--key: a certificate generated for the session', () => {
    const command = parseCommand(['serve', '--https', '--host', '0.0.0.0']);
    expect(command.kind === 'serve' && command.options.tls).toBe('self-signed');
  });

  it('--port=N and bracketed IPv6 hosts', () => {
    const command = parseCommand(['serve', '--port=8080', '--host=[::1]']);
    expect(command.kind === 'serve' && command.options).toMatchObject({ port: 8080, host: '::1' });
  });

  it.each([[['--help']], [['-h']], [['serve', '--help']], [[]]])('%j is help', (args) => {
    expect(parseCommand(args).kind).toBe('help');
  });

  it.each([
    [['serve', '--prot', '4010'], /Unknown option '--prot'.*--help/],
    [['serve', '--port'], /--port/],
    [['serve', '--data', ' '], /--data needs a folder path/],
    [['serve', '--port', 'abc'], /--port must be an integer from 0 to 65535, got "abc"/],
    [['serve', '--port', '70000'], /--port must be an integer/],
    [['serve', '--port', '-1'], /--port/],
    [['serve', '--seed', '1.5'], /--seed must be an integer/],
    [['serve', '--seed', 'x'], /--seed must be an integer/],
    [['serve', '--environment', 'staging'], /--environment must be sandbox or production/],
    [['serve', '--cert', 'a.pem', '--https'], /--cert and --key go together/],
    [['serve', '--key', 'a.pem', '--https'], /--cert and --key go together/],
    [['serve', '--cert', 'a.pem', '--key', 'b.pem'], /need --https/],
    [['serve', '--host', 'bad host!'], /--host must be/],
    [['serve', '--host', ''], /--host must be/],
    [['serve', 'extra'], /Too many arguments for 'serve'/],
    [['start'], /Unknown command/],
    [['start', '--help'], /Unknown command/],
    [['serve', '--webhook-allow', '10.0.0.0/40'], /--webhook-allow "10.0.0.0\/40": the prefix length must be 0 to 32/],
    [['serve', '--webhook-allow', 'https://hooks.internal'], /--webhook-allow .*neither an address range/],
    [['serve', '--cors-origin', 'app.example'], /--cors-origin "app.example" is not an origin such as https:\/\/app.example:3000/],
    [['serve', '--cors-origin', 'https://app.example/path'], /--cors-origin .*a scheme, a host and a port only/],
    [['logs', 'tail', '--backlog', 'all', '--api-key', `sk_test_${'a'.repeat(32)}`], /--backlog takes a number of requests, such as 50; got "all"/],
  ])('%j is a usage error', (args, message) => {
    expect(usageError(args)).toMatch(message);
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', '10.0.0.1', 'example.com', '128.0.0.1'])('plain HTTP on %s needs --https', (host) => {
    expect(usageError(['serve', '--host', host])).toMatch(/loopback hosts only.*--https/);
    expect(parseCommand(['serve', '--host', host, '--https']).kind).toBe('serve');
  });

  it.each(['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]'])('plain HTTP on the loopback host %s is allowed', (host) => {
    expect(parseCommand(['serve', '--host', host]).kind).toBe('serve');
  });
});

describe('isLoopbackHost (the one loopback rule: --host, the inspector, CORS, webhooks, the client)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['127.example.com', false],
    ['0.0.0.0', false],
    ['::', false],
    ['localhost.evil.com', false],
    ['::ffff:127.0.0.1', true],
    ['[::FFFF:127.0.0.1]', true],
    ['::ffff:10.0.0.1', false],
    ['127.0.0.256', false],
    ['127.0.0.1.nip.io', false],
    ['localhost:4010', false],
  ])('%s -> %s', (host, expected) => {
    expect(isLoopbackHost(host)).toBe(expected);
  });
});

describe('conformance: an ordinary commander command', () => {
  const key = `sk_test_${'a'.repeat(32)}`;

  it('--help is commander\'s, and names --url first, --base-url as its older name', () => {
    const help = parseCommand(['conformance', '--help'], { helpWidth: 200 });
    if (help.kind !== 'help') throw new Error('not help');
    expect(help.text).toMatch(/^Usage: pix-usdt-sandbox conformance \[options\]/);
    expect(help.text).toMatch(/^\s+--url <URL>\s+the API's base URL \(env: PIX_USDT_SANDBOX_URL\)$/m);
    expect(help.text).toMatch(/^\s+--base-url <URL>\s+the same as --url/m);
    expect(help.text.indexOf('--url <URL>')).toBeLessThan(help.text.indexOf('--base-url <URL>'));
  });

  it('--url or --base-url, the other options normalized', () => {
    const expected = { url: 'https://api.example.com', apiKey: key, receiverUrl: undefined, receiverPort: undefined, scenarios: undefined, rateLimit: false, pacing: true, json: false, junit: undefined, record: undefined, tenant: 'own' };
    expect(parseCommand(['conformance', '--url', 'https://api.example.com', '--api-key', key])).toEqual({ kind: 'conformance', options: expected });
    expect(parseCommand(['conformance', '--base-url', 'https://api.example.com', '--api-key', key])).toEqual({ kind: 'conformance', options: expected });
    const all = parseCommand(['conformance', '--url', 'http://127.0.0.1:4010', '--api-key', key, '--scenario', 'users.', '--scenario', 'quotes.create', '--no-pacing', '--rate-limit', '--json', '--junit', 'r.xml', '--record', 'c.json', '--receiver-url', 'https://hooks.example', '--receiver-port', '0', '--key-tenant']);
    expect(all.kind === 'conformance' && all.options).toEqual({ url: 'http://127.0.0.1:4010', apiKey: key, receiverUrl: 'https://hooks.example', receiverPort: 0, scenarios: ['users.', 'quotes.create'], rateLimit: true, pacing: false, json: true, junit: 'r.xml', record: 'c.json', tenant: 'key' });
  });

  it.each([
    [['conformance', '--api-key', key], /--url and --api-key are required/],
    [['conformance', '--url', 'https://x.test'], /--url and --api-key are required/],
    [['conformance', '--url', 'not a url', '--api-key', key], /--url must be an absolute http/],
    [['conformance', '--url', 'https://x.test', '--api-key', key, '--receiver-port', '4000'], /--receiver-port .*needs --receiver-url/],
    [['conformance', '--url', 'https://x.test', '--api-key', key, '--receiver-url', 'https://h.test', '--receiver-port', '70000'], /--receiver-port takes a port/],
    [['conformance', '--url', 'https://x.test', '--api-key', key, '--bogus'], /Unknown option '--bogus'/],
  ])('%j is a usage error', (args, message) => {
    expect(usageError(args)).toMatch(message);
  });
});
