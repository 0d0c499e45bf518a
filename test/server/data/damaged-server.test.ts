/**
 * A damaged or contested data folder with the real binary (issue 35):
 *
 * - a page damaged under a running server: that tenant's requests answer 503 in the envelope,
 *   the other tenant is served, the server goes on and says so once; restarted on the damaged
 *   file, it refuses to start (exit 1, the file named) and leaves the folder as it was, no lock
 *   behind;
 * - two servers started at once on one folder, after a `kill -9`: exactly one comes up, in
 *   every folder of a round (the kernel decides, not the lock file's pid);
 * - a lock that is a FIFO: refused at once, by name.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, cpSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { DataFolder } from '../../../src/server/data/folder.js';
import { lock, lockHolder } from '../../../src/server/data/lock.js';
import { openDataStore } from '../../../src/server/data/store.js';
import { cpf } from '../../support/fixtures.js';
import { type Child, type Ready, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';
import { folderState } from './folder-state.js';

afterEach(stopAll);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-damaged-'));
  dirs.push(dir);
  return dir;
}

async function call(ready: Ready, apiKey: string, method: string, route: string, body?: unknown, idempotencyKey?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
  return fetch(`${ready.url}${route}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
}

function user(n: number): { external_id: string; name: string; document_type: 'cpf'; document_number: string } {
  return { external_id: `e-${n}`, name: `User ${n} ${'x'.repeat(180)}`, document_type: 'cpf', document_number: cpf(n) };
}

async function createUser(ready: Ready, apiKey: string, n: number): Promise<string> {
  const res = await call(ready, apiKey, 'POST', '/v1/users', user(n), `u-${n}`);
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function stop(child: Child): Promise<void> {
  child.process.kill('SIGTERM');
  expect(await exitCode(child)).toBe(0);
}

describe('a damaged data.db with the real server', () => {
  it('under a running server: that tenant answers 503, the other is served; restarted on it: refused, untouched', async () => {
    // The folder made in process (quicker than a server): tenant a (the default) and b, each with users.
    const dir = tempDir();
    const store = openDataStore(dir, { quoteRateLimit: 0 });
    const users = (apiKey: string, from: number, count: number): Promise<string[]> =>
      Promise.all(Array.from({ length: count }, (_, i) => new PixUsdt({ apiKey, fetch: store.sandbox.fetch, maxRetries: 0 }).users.create(user(from + i)).then((u) => u.id)));
    const made = (await (
      await store.sandbox.fetch('/v1/test_helpers/tenants', { method: 'POST', headers: { authorization: `Bearer ${store.sandbox.apiKey}`, 'content-type': 'application/json' }, body: '{}' })
    ).json()) as { tenant_id: string; api_key: string };
    const a = { apiKey: store.sandbox.apiKey, userId: ((await users(store.sandbox.apiKey, 1, 1)) as [string])[0] };
    // Enough rows that tenant b's fill pages of their own.
    const b = { tenantId: made.tenant_id, apiKey: made.api_key, users: await users(made.api_key, 2, 40) };
    store.close();

    // A new server: tenant b is not loaded until used, so its pages are read from the disk then.
    const second = await serve(['--data', dir]);
    const file = path.join(dir, 'data.db');
    const bytes = readFileSync(file);
    // A user in the middle: the pages where new rows go (the last ones) stay whole, so that writes go on.
    const victim = b.users[Math.floor(b.users.length / 2)] as string;
    const pages = new Set<number>();
    for (let at = bytes.indexOf(victim); at >= 0; at = bytes.indexOf(victim, at + 1)) pages.add(Math.floor(at / 4096));
    // Only pages that hold nothing of tenant a (its key, its user, its id).
    const ofA = [a.apiKey, a.userId, second.ready.tenant_id];
    expect(second.ready.api_key).toBe(a.apiKey);
    const target = [...pages].filter((p) => ofA.every((s) => !bytes.subarray(p * 4096, (p + 1) * 4096).includes(s)));
    expect(target.length).toBeGreaterThan(0);
    const fd = openSync(file, 'r+');
    for (const p of target) writeSync(fd, Buffer.alloc(4096, 0xab), 0, 4096, p * 4096);
    closeSync(fd);

    for (let i = 0; i < 2; i++) {
      const res = await call(second.ready, b.apiKey, 'GET', `/v1/users/${victim}`);
      expect(res.status).toBe(503);
      const body = (await res.json()) as { code: string; request_id: string; details: { reason: string } };
      expect(body).toMatchObject({ code: 'storage_unavailable', details: { reason: 'storage_damaged' } });
      expect(body.request_id).toMatch(/^req_/);
    }
    // The other tenant reads and writes; the server is up.
    expect((await call(second.ready, a.apiKey, 'GET', `/v1/users/${a.userId}`)).status).toBe(200);
    await createUser(second.ready, a.apiKey, 100);
    const damaged = (): string[] => second.child.stderr().split('\n').filter((l) => l.includes('is damaged'));
    await waitFor(second.child, () => (damaged().length > 0 ? true : undefined), 'the damaged line');
    expect(damaged()).toEqual([expect.stringContaining(`${file} is damaged: reading tenant ${b.tenantId} failed`)]);
    await stop(second.child);

    // Restarted on the damaged file: refused at the start, exit 1, the folder as it was.
    const before = folderState(dir);
    const refused = run(['serve', '--port', '0', '--data', dir]);
    expect(await exitCode(refused)).toBe(1);
    expect(refused.stdout()).toBe('');
    expect(refused.stderr()).toContain(`${file} is damaged (`);
    expect(refused.stderr()).toContain('restore it from a backup, or move it away to start afresh');
    expect(folderState(dir)).toEqual(before);
    expect(readdirSync(dir)).toEqual(['data.db']);
  }, 60_000);
});

// Two folders in `npm test`; a longer campaign: PIX_USDT_LOCK_RACE_PAIRS=24 npx vitest run test/server/data/damaged-server.test.ts
const FOLDERS = Number(process.env['PIX_USDT_LOCK_RACE_PAIRS'] ?? 2);

describe('one server per folder', () => {
  it('two servers started at once on a folder after kill -9: exactly one comes up, in every folder', async () => {
    // A folder as a kill -9 leaves it: the database, and the lock of a server that is gone (made in
    // process, quicker than a server: the lock file this version writes, naming a pid that ended).
    const origin = tempDir();
    openDataStore(origin, {}).close();
    const folder = DataFolder.open(tempDir());
    const held = lock(folder);
    const bytes = readFileSync(folder.file('lock'));
    held.release();
    const gone = spawnSync(process.execPath, ['-e', '']).pid as number;
    bytes.writeUInt32BE(gone, 60);
    expect(lockHolder(bytes)).toBe(gone);
    writeFileSync(path.join(origin, 'lock'), bytes, { mode: 0o600 });
    const folders = Array.from({ length: FOLDERS }, () => {
      const dir = tempDir();
      cpSync(origin, dir, { recursive: true });
      return dir;
    });
    // Both servers of a folder spawned in the same turn.
    const pairs = folders.map((dir) => [run(['serve', '--port', '0', '--data', dir]), run(['serve', '--port', '0', '--data', dir])] as const);
    const outcome = (child: Child): Promise<'up' | 'refused'> =>
      // Many starts at once are slow on a busy machine: a start that is merely slow is a failure of its own, not a refusal.
      waitFor(child, () => (child.stdout().includes('\n') ? ('up' as const) : undefined), 'the ready line', 20_000 + FOLDERS * 2_500).catch(async (error: unknown) => {
        if (!String(error).includes('The process exited')) throw error;
        expect(await exitCode(child)).toBe(1);
        expect(child.stderr()).toMatch(/is in use by another sandbox server( \(pid \d+\))?\. Stop it/);
        return 'refused' as const;
      });
    for (const [one, other] of pairs) {
      const outcomes = await Promise.all([outcome(one), outcome(other)]);
      expect(outcomes.sort()).toEqual(['refused', 'up']);
    }
  }, 60_000 + FOLDERS * 5_000);

  it('a lock that is a FIFO: refused at once by name, not waited on', async () => {
    const dir = tempDir();
    execFileSync('mkfifo', ['-m', '600', path.join(dir, 'lock')]);
    const before = folderState(dir);
    const child = run(['serve', '--port', '0', '--data', dir]);
    expect(await exitCode(child, 15_000)).toBe(1);
    expect(child.stderr()).toContain(`${path.join(dir, 'lock')} is a FIFO`);
    expect(folderState(dir)).toEqual(before);
  });
});
