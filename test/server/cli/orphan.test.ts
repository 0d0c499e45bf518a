/**
 * `serve` and `listen` stop with their parent: a server left running after its parent (npx, a
 * shell, a Python harness) was killed keeps its port and its state for the next run; a `listen`
 * left running keeps its endpoint registered, and every delivery goes to it.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { startServer } from '../../../src/server/http/start.js';
import { CLI, type Ready, assertBuilt, exitCode, run, stopAll, waitFor } from '../helpers.js';

afterAll(stopAll);

/** Whether `pid` is still a running process (a zombie waiting for its reaper counts as stopped). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true; // no /proc (macOS): kill(0) said it exists
  }
}

async function until(check: () => Promise<boolean> | boolean, what: string, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('serve stops with its parent', () => {
  it('the parent is killed with SIGKILL (it cannot pass anything on): the server exits', async () => {
    assertBuilt();
    // The parent starts serve as npx does (stdin not a pipe, so only the parent watch can notice),
    // reports the server's pid and ready line, then waits to be killed.
    const script = `
      const { spawn } = require('node:child_process');
      const server = spawn(process.execPath, [${JSON.stringify(CLI)}, 'serve', '--port', '0'], { stdio: ['ignore', 'pipe', 'ignore'] });
      server.stdout.once('data', (d) => process.stdout.write(JSON.stringify({ pid: server.pid, ready: JSON.parse(String(d).split('\\n')[0]) }) + '\\n'));
      setInterval(() => {}, 1000);
    `;
    const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    parent.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    await until(() => out.includes('\n'), "the parent's report");
    const { pid, ready } = JSON.parse(out.split('\n')[0] as string) as { pid: number; ready: Ready };
    expect((await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${ready.api_key}` } })).status).toBe(200);
    expect(running(pid)).toBe(true);

    parent.kill('SIGKILL');
    await until(() => !running(pid), 'the server to exit');
    await expect(fetch(`${ready.url}/v1/users`)).rejects.toThrow();
  });

  it('its stdin is a pipe and the pipe closes: the server exits 0', async () => {
    assertBuilt();
    const server = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    server.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    server.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = new Promise<number | null>((resolve) => server.once('close', (code) => resolve(code)));
    await until(() => out.includes('\n'), 'the ready line');
    const ready = JSON.parse(out.split('\n')[0] as string) as Ready;
    // Still running while the pipe is open.
    expect((await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${ready.api_key}` } })).status).toBe(200);
    server.stdin.end();
    expect(await exited).toBe(0);
    expect(err).toMatch(/its stdin closed, finishing requests in flight/);
  });

  it('stdin that is not a pipe (/dev/null, as for `serve &` in a script) does not stop it', async () => {
    const child = run(['serve', '--port', '0']);
    const line = await waitFor(child, () => (child.stdout().includes('\n') ? child.stdout().split('\n')[0] : undefined), 'the ready line');
    const ready = JSON.parse(line as string) as Ready;
    // Long enough for several parent checks (every 500 ms) and an immediate EOF on stdin.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${ready.api_key}` } })).status).toBe(200);
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
  });
});

describe('listen stops with its parent (issue 36)', () => {
  it('the parent dies of a SIGTERM it does not pass on (as under npx): listen deletes its endpoint and exits', async () => {
    assertBuilt();
    const server = await startServer({ port: 0, host: '127.0.0.1', sandbox: {} }, () => undefined);
    try {
      const client = new PixUsdt({ apiKey: server.sandbox.apiKey, baseUrl: server.url, maxRetries: 0 });
      // stdin not a pipe: only the parent watch can notice.
      const script = `
        const { spawn } = require('node:child_process');
        const listen = spawn(process.execPath, [${JSON.stringify(CLI)}, 'listen', '--forward-to', 'http://127.0.0.1:9/hooks', '--json'], {
          stdio: ['ignore', 'pipe', 'inherit'],
          env: { ...process.env, PIX_USDT_SANDBOX_URL: ${JSON.stringify(server.url)}, PIX_USDT_API_KEY: ${JSON.stringify(server.sandbox.apiKey)} },
        });
        listen.stdout.once('data', (d) => process.stdout.write(JSON.stringify({ pid: listen.pid, ready: JSON.parse(String(d).split('\\n')[0]) }) + '\\n'));
        setInterval(() => {}, 1000);
      `;
      const parent = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      parent.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      await until(() => out.includes('\n'), "the parent's report");
      const { pid, ready } = JSON.parse(out.split('\n')[0] as string) as { pid: number; ready: { endpoint_id: string } };
      expect((await client.webhookEndpoints.list()).data.map((e) => e.id)).toEqual([ready.endpoint_id]);

      parent.kill('SIGTERM');
      await until(() => !running(pid), 'listen to exit');
      expect((await client.webhookEndpoints.list()).data).toEqual([]);
    } finally {
      server.forceClose();
      await server.close();
    }
  });
});

