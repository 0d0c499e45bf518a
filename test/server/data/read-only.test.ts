/**
 * Writes that cannot happen, with the real server:
 *
 * - A disk that fills up under a running server (the folder on a 4 MB tmpfs of its own, in a
 *   mount namespace of the server's own: `unshare -rm`, an unprivileged user namespace, no root
 *   needed; filled from outside with `nsenter`): the answers that must write become 503
 *   `storage_unavailable` in the envelope, the server logs it once and keeps serving what was
 *   answered; once space is free the same request succeeds, and the folder reopens with every
 *   answered mutation.
 * - A read-only folder: the start is refused (exit 1, what to do), nothing is written; made
 *   writable again, it opens with its data. (Run as root, the server runs as root without the
 *   capabilities that write and search through any mode, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
 *   and CAP_FOWNER: an owner whose folder is 0500, as any other user. Not as `nobody`, who
 *   cannot read dist/cli.js where the clone is in a folder only root can read: /root, a
 *   `mktemp -d`.)
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Ready, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';
import { cpf } from '../../support/fixtures.js';

const dirs: string[] = [];
afterEach(() => {
  stopAll();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-ro-'));
  dirs.push(dir);
  return dir;
}

function createUser(ready: Ready, n: number, idempotencyKey: string): Promise<Response> {
  return fetch(`${ready.url}/v1/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }),
  });
}

async function externalIds(ready: Ready): Promise<string[]> {
  const res = await fetch(`${ready.url}/v1/users?limit=100`, { headers: { authorization: `Bearer ${ready.api_key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Array<{ external_id: string }> }).data.map((u) => u.external_id).sort();
}

describe('serve --data when the disk cannot take a write', () => {
  it('answers 503 storage_unavailable, logs once, serves what was answered, and writes again once it can', async () => {
    const dir = tempDir();
    const wrapper = ['unshare', '-rm', '--', 'sh', '-c', 'mount -t tmpfs -o size=4m,mode=700 tmpfs "$1" && shift && exec "$@"', 'sh', dir];
    const { child, ready } = await serve(['--data', dir], {}, wrapper);
    // A command in the server's namespaces, where its folder is the small disk.
    const inside = (...command: string[]): void => {
      execFileSync('nsenter', ['-t', String(child.process.pid), '-U', '-m', '--preserve-credentials', ...command], { stdio: 'ignore' });
    };
    expect((await createUser(ready, 1, 'u-1')).status).toBe(201);

    try {
      inside('sh', '-c', 'cat /dev/zero > "$0/filler"', dir);
    } catch {
      // `cat` stops with ENOSPC: the disk is full, as meant.
    }
    for (const n of [2, 3]) {
      const res = await createUser(ready, n, `u-${n}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(((await res.json()) as { code: string }).code).toBe('storage_unavailable');
    }
    // Reads go on; the refused users are nowhere, in memory either.
    expect(await externalIds(ready)).toEqual(['ext-1']);
    // The server's stderr lines leave once per turn of its event loop and come over a pipe: an
    // answer can arrive before the line that the same request logged.
    const cannotWrite = (): string[] => child.stderr().split('\n').filter((l) => l.includes('cannot write'));
    await waitFor(child, () => (cannotWrite().length > 0 ? true : undefined), 'the cannot-write line');
    expect(cannotWrite()).toHaveLength(1);

    inside('rm', path.join(dir, 'filler'));
    expect((await createUser(ready, 2, 'u-2')).status).toBe(201);
    await waitFor(child, () => (child.stderr().includes('works again') ? true : undefined), 'the works-again line');

    // The folder as a kill would leave it, copied out of the namespace, reopens with what was answered.
    const copy = tempDir();
    inside('sh', '-c', 'cp -a "$0"/data.db* "$1"/', dir, copy);
    child.process.kill('SIGKILL');
    await exitCode(child);
    const again = await serve(['--data', copy]);
    expect(await externalIds(again.ready)).toEqual(['ext-1', 'ext-2']);
  });
});

describe('serve --data on a read-only folder', () => {
  it('refuses to start (exit 1, what to do), writes nothing, and opens once writable again', async () => {
    const dir = tempDir();
    const first = await serve(['--data', dir]);
    expect((await createUser(first.ready, 1, 'u-1')).status).toBe(201);
    first.child.process.kill('SIGTERM');
    expect(await exitCode(first.child)).toBe(0);

    // Root writes through any mode: as root, the server runs without the capabilities that let it.
    const asRoot = process.getuid?.() === 0;
    const wrapper = asRoot ? ['setpriv', '--bounding-set=-dac_override,-dac_read_search,-fowner', '--inh-caps=-all', '--'] : [];
    const before = readdirSync(dir).map((n) => `${n}:${statSync(path.join(dir, n)).mtimeMs}`);
    chmodSync(dir, 0o500);
    const refused = run(['serve', '--port', '0', '--data', dir], {}, undefined, wrapper);
    expect(await exitCode(refused)).toBe(1);
    expect(refused.stderr()).toContain(`Cannot write in ${dir}: permission denied. Give --data a folder this user can write to.`);
    expect(readdirSync(dir).map((n) => `${n}:${statSync(path.join(dir, n)).mtimeMs}`)).toEqual(before);

    chmodSync(dir, 0o700);
    const reopened = run(['serve', '--port', '0', '--data', dir], {}, undefined, wrapper);
    const line = await waitFor(reopened, () => (reopened.stdout().includes('\n') ? reopened.stdout().split('\n')[0] : undefined), 'the ready line');
    expect(await externalIds(JSON.parse(line as string) as Ready)).toEqual(['ext-1']);
  });
});
