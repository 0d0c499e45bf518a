/**
 * `serve` with stderr on a file (`2>serve.log`): the flush writes the file itself, synchronously
 * (server/cli/process-io.ts), and every line arrives whole, in order, the last ones before exit.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, assertBuilt } from '../helpers.js';

const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-stderr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `serve` with stderr on `fd` and resolves with its ready line. */
async function serveWithStderr(fd: number): Promise<{ child: ReturnType<typeof spawn>; ready: { url: string; api_key: string } }> {
  assertBuilt();
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0'], { stdio: ['pipe', 'pipe', fd] });
  closeSync(fd);
  let out = '';
  const stdout = child.stdout as NodeJS.ReadableStream;
  stdout.setEncoding('utf8');
  const ready = await new Promise<{ url: string; api_key: string }>((resolve, reject) => {
    stdout.on('data', (chunk: string | Buffer) => {
      out += chunk;
      if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0] as string) as { url: string; api_key: string });
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before its ready line`)));
  });
  return { child, ready };
}

describe('serve with stderr on a file', () => {
  // Linux's full device: every write fails with ENOSPC (a full disk), where the direct write gives way to the stream.
  it.runIf(existsSync('/dev/full'))('goes on answering when stderr cannot be written (a full disk), and stops cleanly', async () => {
    const { child, ready } = await serveWithStderr(openSync('/dev/full', 'w'));
    for (let i = 0; i < 3; i++) {
      const response = await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${ready.api_key}` } });
      expect(response.status).toBe(200);
      // Each answer's line is flushed in a later turn: the next request comes after that write failed.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
  });

  it('writes every request line to the file, in order, and the last lines before it exits', async () => {
    const file = path.join(dir, 'serve.log');
    const { child, ready } = await serveWithStderr(openSync(file, 'w'));
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const response = await fetch(`${ready.url}/v1/users?limit=${i + 1}`, { headers: { authorization: `Bearer ${ready.api_key}` } });
      expect(response.status).toBe(200);
      ids.push(response.headers.get('x-request-id') as string);
    }
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    const lines = readFileSync(file, 'utf8').split('\n');
    const logged = lines.filter((l) => l.startsWith('GET /v1/users '));
    expect(logged).toHaveLength(25);
    // Each line whole: method, path, status, latency, the answer's request id, in the order answered.
    logged.forEach((line, i) => expect(line).toMatch(new RegExp(`^GET /v1/users 200 \\d+\\.\\dms ${ids[i]}$`)));
    expect(lines.some((l) => l.includes('listening on'))).toBe(true);
    expect(lines.at(-2)).toBe('pix-usdt-sandbox: stopped');
    expect(lines.at(-1)).toBe('');
  });
});
