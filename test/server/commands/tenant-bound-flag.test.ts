/**
 * Issue 35: `serve --max-tenants-per-root N`, parsed without a process into the sandbox option
 * `maxTenantsPerRoot` (the bound itself is tested in test/sandbox/core/lineage.test.ts, and against
 * a real `serve` in test/server/egress/tenant-attack.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { UsageError, parseCommand } from '../../../src/server/cli/program.js';

function sandboxOptions(args: string[]): unknown {
  const command = parseCommand(['serve', ...args]);
  if (command.kind !== 'serve') throw new Error(`not serve: ${command.kind}`);
  return command.options.sandbox;
}

describe('serve --max-tenants-per-root', () => {
  it('parses a whole number from 0 into maxTenantsPerRoot; absent, the sandbox keeps its default', () => {
    expect(sandboxOptions(['--max-tenants-per-root', '25'])).toEqual({ environment: 'sandbox', maxTenantsPerRoot: 25 });
    expect(sandboxOptions(['--max-tenants-per-root=0'])).toEqual({ environment: 'sandbox', maxTenantsPerRoot: 0 });
    expect(sandboxOptions([])).toEqual({ environment: 'sandbox' });
  });

  it('anything else is a usage error naming the flag', () => {
    for (const value of ['-1', '1.5', '1e3', 'many', '', '99999999999']) {
      expect(() => parseCommand(['serve', '--max-tenants-per-root', value]), value).toThrow(UsageError);
      expect(() => parseCommand(['serve', '--max-tenants-per-root', value])).toThrow('--max-tenants-per-root');
    }
  });
});
