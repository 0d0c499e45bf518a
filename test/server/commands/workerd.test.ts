/**
 * Issue 33: `pix-usdt-sandbox workerd`, the Durable Objects deployment run locally, parsed without
 * a process; the tools it needs found in the project, or a message with the install line. The
 * command itself runs from the tarball in test/package/durable-object.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError, parseCommand } from '../../../src/server/cli/program.js';
import type { WorkerdOptions } from '../../../src/server/commands/workerd.js';
import { INSTALL_TOOLS, MissingToolError, loadTools, workerdConfig } from '../../../src/server/workerd/deployment.js';

function options(args: string[]): WorkerdOptions {
  const command = parseCommand(['workerd', ...args]);
  if (command.kind !== 'workerd') throw new Error(`not workerd: ${command.kind}`);
  return command.options;
}

describe('pix-usdt-sandbox workerd', () => {
  it('parses its flags into the Worker variables; absent flags leave the defaults', () => {
    expect(options([])).toEqual({ port: 8787, data: undefined, worker: null, controlToken: undefined, vars: {}, json: false });
    expect(options(['--port', '0', '--data', 'sandbox-data', '--worker', 'src/worker.ts', '--settlement-delay', '5', '--quote-ttl', '30', '--deposit-window', '600', '--quote-rate-limit', '0', '--json'])).toEqual({
      port: 0,
      data: 'sandbox-data',
      worker: 'src/worker.ts',
      controlToken: undefined,
      vars: { SETTLEMENT_DELAY_SECONDS: '5', QUOTE_TTL_SECONDS: '30', DEPOSIT_WINDOW_SECONDS: '600', QUOTE_RATE_LIMIT: '0' },
      json: true,
    });
    expect(options(['--control-token', 'a-token-of-twenty-chars']).controlToken).toBe('a-token-of-twenty-chars');
  });

  it('refuses bad values with a usage error naming the flag, never echoing a token', () => {
    for (const args of [['--port', '70000'], ['--settlement-delay', '-1'], ['--quote-rate-limit', '1.5'], ['--data', ' '], ['--control-token', 'short secret']]) {
      expect(() => options(args), args.join(' ')).toThrow(UsageError);
    }
    const message = (() => {
      try {
        options(['--control-token', 'short secret']);
        return '';
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toContain('--control-token');
    expect(message).not.toContain('short secret');
  });

  it('lists the command in the help, and says what to install when a tool is missing', () => {
    const help = parseCommand(['--help']);
    expect(help.kind === 'help' && help.text).toContain('workerd');
    const empty = mkdtempSync(join(tmpdir(), 'pix-usdt-no-tools-'));
    try {
      expect(() => loadTools(empty, null)).toThrow(MissingToolError);
      expect(() => loadTools(empty, null)).toThrow(INSTALL_TOOLS);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('writes a config that reads the operator token from the environment, never from the file', () => {
    const config = workerdConfig({ worker: 'worker.js', storageDir: '/tmp/objects', address: '127.0.0.1:8787', vars: { QUOTE_RATE_LIMIT: '0' } });
    expect(config).toContain('(name = "CONTROL_TOKEN", fromEnvironment = "CONTROL_TOKEN")');
    expect(config.match(/enableSql = true/g)).toHaveLength(2);
    expect(config).toContain('(name = "QUOTE_RATE_LIMIT", text = "0")');
  });
});
