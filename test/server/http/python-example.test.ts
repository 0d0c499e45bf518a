/**
 * examples/python/partner.py, run as a partner would run it: Python's standard library against
 * the built server. It needs a python3 on PATH: a Node toolchain does not bring one, so on a
 * machine without it this test cannot run (it is the only way to prove the Python example) and
 * is left out; with python3 present it must pass.
 */
import { execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLI, assertBuilt } from '../helpers.js';

const SCRIPT = fileURLToPath(new URL('../../../examples/python/partner.py', import.meta.url));

function python(): string | null {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return 'python3';
  } catch {
    return null;
  }
}

const PYTHON = python();

describe('examples/python/partner.py', () => {
  it.runIf(PYTHON !== null)('starts serve, waits for its line, completes a conversion, advances the clock, stops it', async () => {
    assertBuilt();
    const child = spawn(PYTHON as string, [SCRIPT], {
      env: { ...process.env, PIX_USDT_SANDBOX: `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, err).toBe(0);
    expect(out).toMatch(/^sandbox at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(out).toMatch(/^conversion [0-9a-f-]+: completed$/m);
    const clock = /^clock: (\S+) -> (\S+)$/m.exec(out);
    expect(clock).not.toBeNull();
    expect(Date.parse(clock?.[2] as string) - Date.parse(clock?.[1] as string)).toBeGreaterThanOrEqual(86_400_000);
    expect(out.trim().endsWith('done')).toBe(true);
  });
});
