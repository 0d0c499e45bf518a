/**
 * `serve --data DIR` with the real binary: every answered mutation survives `kill -9` at a
 * random instant under load (several rounds on one folder), and so does its idempotent replay;
 * a clean stop leaves the one database file; damaged, foreign and unusable folders (the
 * database's, and the old layout's files) stop the start with exit code 1 and a message naming
 * the file, and are left byte for byte as they were; without the SQLite package, exit code 5 and
 * what to install.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { type Ready, CLI, exitCode, run, serve, stopAll, waitFor } from '../helpers.js';
import { cpf, onrampBody } from '../../support/fixtures.js';
import { SCHEMA_VERSION } from '../../../src/sandbox/storage/sql.js';

const LEGACY = fileURLToPath(new URL('../fixtures/legacy-data/', import.meta.url));

afterEach(stopAll);

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-data-'));
  dirs.push(dir);
  return dir;
}

/** A folder in the old layout (snapshot.json + journal.ndjson), written by pix-usdt 0.1 (test/server/data/migration.test.ts). */
function legacyFolder(): string {
  const dir = tempDir();
  cpSync(LEGACY, dir, { recursive: true });
  return dir;
}

interface Answered {
  tenant: string;
  apiKey: string;
  idempotencyKey: string;
  request: { path: string; body: string };
  status: number;
  body: string;
  userId: string;
}

function post(ready: Ready, apiKey: string, route: string, body: string, idempotencyKey: string): Promise<Response> {
  return fetch(`${ready.url}${route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body,
  });
}

// A deterministic pseudo-random sequence, so that a failing round can be run again as it was.
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('serve --data under kill -9', () => {
  it('keeps every answered mutation, and its idempotent replay, across rounds of SIGKILL at random instants', async () => {
    const dir = tempDir();
    const random = lcg(13);
    const answered: Answered[] = [];
    const tenants: Array<{ id: string; apiKey: string }> = [];
    const clocks: Array<{ apiKey: string; now: number }> = [];
    let defaultKey = '';
    let counter = 0;
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      const { child, ready } = await serve(['--data', dir]);
      // The default tenant and its key are part of the state.
      if (round === 0) defaultKey = ready.api_key;
      expect(ready.api_key).toBe(defaultKey);

      // Everything answered before this start is there, with the same answer.
      for (const a of answered) {
        const res = await fetch(`${ready.url}/v1/users/${a.userId}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
        expect(res.status, `user ${a.userId} of round < ${round}`).toBe(200);
        expect(((await res.json()) as { external_id: string }).external_id).toBe((JSON.parse(a.body) as { external_id: string }).external_id);
      }
      for (const c of clocks) {
        const res = await fetch(`${ready.url}/v1/test_helpers/clock`, { headers: { authorization: `Bearer ${c.apiKey}` } });
        expect(Date.parse(((await res.json()) as { now: string }).now)).toBeGreaterThanOrEqual(c.now);
      }
      const sample = answered.filter((_, i) => i % 5 === round % 5);
      for (const a of sample) {
        const replay = await post(ready, a.apiKey, a.request.path, a.request.body, a.idempotencyKey);
        expect(replay.status).toBe(a.status);
        expect(replay.headers.get('idempotent-replayed')).toBe('true');
        expect(await replay.text()).toBe(a.body);
      }

      // A tenant of its own for this round (created through the API, so it is a mutation too).
      const created = await post(ready, defaultKey, '/v1/test_helpers/tenants', '{}', `tenant-${round}`);
      expect(created.status).toBe(201);
      const t = (await created.json()) as { tenant_id: string; api_key: string };
      tenants.push({ id: t.tenant_id, apiKey: t.api_key });
      // Its clock moves a day ahead: the answered instant is a floor after every restart.
      const advanced = await post(ready, t.api_key, '/v1/test_helpers/clock/advance', JSON.stringify({ seconds: 86_400 }), `advance-${round}`);
      expect(advanced.status).toBe(200);
      clocks.push({ apiKey: t.api_key, now: Date.parse(((await advanced.json()) as { now: string }).now) });

      // Load: workers create users in every tenant until the kill.
      let killed = false;
      const worker = async (): Promise<void> => {
        while (!killed) {
          const n = counter++;
          const owner = n % 3 === 0 ? { apiKey: defaultKey, id: ready.tenant_id } : (tenants[n % tenants.length] as { id: string; apiKey: string });
          const body = JSON.stringify({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
          const idempotencyKey = `user-${n}`;
          let res: Response;
          let text: string;
          try {
            res = await post(ready, owner.apiKey, '/v1/users', body, idempotencyKey);
            text = await res.text();
          } catch {
            return; // the connection died with the server: not answered
          }
          expect(res.status, text).toBe(201);
          answered.push({ tenant: owner.id, apiKey: owner.apiKey, idempotencyKey, request: { path: '/v1/users', body }, status: res.status, body: text, userId: (JSON.parse(text) as { id: string }).id });
        }
      };
      const workers = Array.from({ length: 8 }, () => worker());
      const before = answered.length;
      // Kill at a random instant once some load is answered.
      await waitFor(child, () => (answered.length >= before + 20 ? true : undefined), 'some answered mutations');
      await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * 300)));
      child.process.kill('SIGKILL');
      expect(await exitCode(child)).toBe('SIGKILL');
      killed = true;
      await Promise.all(workers);
      expect(answered.length).toBeGreaterThan(before);
    }

    // A last start: every answer of every round is there; then a clean stop leaves one file.
    const { child, ready } = await serve(['--data', dir]);
    for (const a of answered) {
      const res = await fetch(`${ready.url}/v1/users/${a.userId}`, { headers: { authorization: `Bearer ${a.apiKey}` } });
      expect(res.status).toBe(200);
    }
    // No answered user was created twice or lost: each tenant lists exactly its answered users (plus
    // any unanswered create that reached the disk before the kill, which is allowed).
    for (const owner of [{ id: ready.tenant_id, apiKey: defaultKey }, ...tenants]) {
      const ids = new Set<string>();
      let cursor: string | null = null;
      do {
        const res = await fetch(`${ready.url}/v1/users?limit=100${cursor === null ? '' : `&cursor=${cursor}`}`, { headers: { authorization: `Bearer ${owner.apiKey}` } });
        const page = (await res.json()) as { data: Array<{ id: string }>; next_cursor: string | null };
        for (const u of page.data) ids.add(u.id);
        cursor = page.next_cursor;
      } while (cursor !== null);
      for (const a of answered.filter((x) => x.tenant === owner.id)) expect(ids.has(a.userId)).toBe(true);
    }
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    // The write-ahead log is emptied into the database and removed; the lock is released.
    expect(readdirSync(dir).sort()).toEqual(['data.db']);
  }, 120_000);

  it('after kill -9 answers the same bytes as before it: records, lists, the event log, every replay', async () => {
    const dir = tempDir();
    const first = await serve(['--data', dir]);
    const key = first.ready.api_key;
    const posts: Array<{ route: string; body: string; key: string; text?: string }> = [];
    const send = async (route: string, body: string, status: number): Promise<string> => {
      const entry = { route, body, key: `same-${posts.length}` };
      const res = await post(first.ready, key, route, body, entry.key);
      const text = await res.text();
      expect(res.status, text).toBe(status);
      posts.push({ ...entry, text });
      return (JSON.parse(text) as { id?: string }).id ?? '';
    };
    const user = await send('/v1/users', JSON.stringify({ external_id: 'same-1', name: 'Ana', document_type: 'cpf', document_number: cpf(7) }), 201);
    await send(`/v1/test_helpers/users/${user}/kyc`, '{"status":"approved"}', 200);
    const quote = await send('/v1/quotes', JSON.stringify(onrampBody(user, '100.00')), 201);
    const conversion = await send(`/v1/quotes/${quote}/accept`, '', 201);
    await send(`/v1/test_helpers/conversions/${conversion}/simulate-onramp-pix-paid`, '{"settle":true}', 200);
    const reads = [`/v1/users/${user}`, `/v1/quotes/${quote}`, `/v1/conversions/${conversion}`, '/v1/conversions?limit=10', '/v1/transactions?limit=10', '/v1/test_helpers/events?limit=100'];
    const answers = async (ready: Ready): Promise<string[]> => {
      const out: string[] = [];
      for (const route of reads) {
        const res = await fetch(`${ready.url}${route}`, { headers: { authorization: `Bearer ${key}` } });
        out.push(`${route} ${res.status} ${await res.text()}`);
      }
      for (const p of posts) {
        const res = await post(ready, key, p.route, p.body, p.key);
        out.push(`${p.route} ${res.status} ${res.headers.get('idempotent-replayed')} ${res.headers.get('x-request-id')} ${await res.text()}`);
      }
      return out;
    };
    const before = await answers(first.ready);
    // The replays answered what the first requests did.
    expect(before.slice(reads.length).map((a) => a.slice(a.indexOf(' {')))).toEqual(posts.map((p) => ` ${p.text}`));
    expect(before.some((a) => a.includes('"conversion.completed"'))).toBe(true);
    first.child.process.kill('SIGKILL');
    expect(await exitCode(first.child)).toBe('SIGKILL');
    const second = await serve(['--data', dir]);
    expect(await answers(second.ready)).toEqual(before);
  });
});

describe('serve --data: what it refuses', () => {
  async function refused(args: string[]): Promise<string> {
    const child = run(['serve', '--port', '0', ...args]);
    expect(await exitCode(child)).toBe(1);
    expect(child.stdout()).toBe('');
    return child.stderr();
  }

  // Every file of a folder with its bytes and modification time.
  function fingerprint(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of readdirSync(dir)) out[name] = `${statSync(path.join(dir, name)).mtimeMs}:${readFileSync(path.join(dir, name), 'base64')}`;
    return out;
  }

  async function validFolder(): Promise<string> {
    const dir = tempDir();
    const { child, ready } = await serve(['--data', dir]);
    const res = await post(ready, ready.api_key, '/v1/users', JSON.stringify({ external_id: 'e', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }), 'k');
    expect(res.status).toBe(201);
    child.process.kill('SIGKILL');
    await exitCode(child);
    return dir;
  }

  it('a snapshot cut short: damaged, names the file, left untouched', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'snapshot.json'), '{"format":"pix-usdt-sandbox-data","version":1,"seq":3,"writtenAt":1,"snaps');
    const before = fingerprint(dir);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain(path.join(dir, 'snapshot.json'));
    expect(stderr).toMatch(/damaged \(it is not complete JSON\)/);
    expect(stderr).toMatch(/move it away|backup/);
    expect(fingerprint(dir)).toEqual(before);
  });

  it("another program's JSON: not ours, left untouched", async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'snapshot.json'), JSON.stringify({ name: 'my-app', version: '1.0.0' }));
    const before = fingerprint(dir);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain(`${path.join(dir, 'snapshot.json')} is not a pix-usdt sandbox data file`);
    expect(fingerprint(dir)).toEqual(before);
  });

  it('a newer format version: asks for an upgrade, left untouched', async () => {
    const dir = legacyFolder();
    const file = path.join(dir, 'snapshot.json');
    const snapshot = JSON.parse(readFileSync(file, 'utf8')) as { version: number };
    writeFileSync(file, JSON.stringify({ ...snapshot, version: 2 }));
    const before = fingerprint(dir);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain('written by a newer pix-usdt (data format version 2; this one reads version 1)');
    expect(fingerprint(dir)).toEqual(before);
  });

  it('a database of a newer schema: asks for an upgrade, left untouched', async () => {
    const dir = await validFolder();
    rmSync(path.join(dir, 'lock'));
    const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Database(path.join(dir, 'data.db'));
    db.exec(`UPDATE meta SET value = '${SCHEMA_VERSION + 1}' WHERE name = 'schema'`);
    db.exec('PRAGMA journal_mode = DELETE');
    db.close();
    const before = fingerprint(dir);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain(`${path.join(dir, 'data.db')} is not usable: it was written by a newer pix-usdt (schema version ${SCHEMA_VERSION + 1}; this one reads version ${SCHEMA_VERSION})`);
    expect(fingerprint(dir)).toEqual(before);
  });

  it("another program's database, or a data.db that is not SQLite: refused, left untouched", async () => {
    const dir = tempDir();
    const Database = createRequire(import.meta.url)('libsql') as new (file: string) => { exec(sql: string): void; close(): void };
    const db = new Database(path.join(dir, 'data.db'));
    db.exec('CREATE TABLE orders (id INTEGER PRIMARY KEY, total TEXT)');
    db.close();
    let before = fingerprint(dir);
    expect(await refused(['--data', dir])).toContain('it holds tables (orders) but no sandbox marks');
    expect(fingerprint(dir)).toEqual(before);

    const other = tempDir();
    writeFileSync(path.join(other, 'data.db'), 'not a database at all, just text that happens to be here\n'.repeat(200));
    before = fingerprint(other);
    expect(await refused(['--data', other])).toContain('is not a SQLite database of a pix-usdt sandbox');
    expect(fingerprint(other)).toEqual(before);
  });

  it('a damaged journal line before the last: names the line, left untouched', async () => {
    const dir = legacyFolder();
    const file = path.join(dir, 'journal.ndjson');
    const lines = readFileSync(file, 'utf8').split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(3); // header, entries, the final newline
    lines.splice(1, 0, '{"seq": garbage}');
    writeFileSync(file, lines.join('\n'));
    const before = fingerprint(dir);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain(`${file} is damaged (line 2 is not JSON)`);
    expect(fingerprint(dir)).toEqual(before);
  });

  it('a journal without its snapshot, and a folder of other files: refused, untouched', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'journal.ndjson'), '{"format":"pix-usdt-sandbox-journal","version":1}\n');
    let before = fingerprint(dir);
    expect(await refused(['--data', dir])).toContain('has no snapshot.json beside it');
    expect(fingerprint(dir)).toEqual(before);

    const other = tempDir();
    writeFileSync(path.join(other, 'notes.txt'), 'mine');
    before = fingerprint(other);
    expect(await refused(['--data', other])).toContain('holds files that are not a sandbox\'s (notes.txt)');
    expect(fingerprint(other)).toEqual(before);
  });

  it('a folder that cannot be created or is a file: says so', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'file');
    writeFileSync(file, 'x');
    expect(await refused(['--data', file])).toContain(`${file} is not a folder`);
    expect(await refused(['--data', path.join(file, 'sub')])).toContain(`Cannot create the data folder ${path.join(file, 'sub')}: ENOTDIR`);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('a folder in use by a running server is refused; a dead server\'s lock is taken over', async () => {
    const dir = await validFolder(); // killed with -9: its lock stays, with a dead pid
    expect(readdirSync(dir)).toContain('lock');
    const { child, ready } = await serve(['--data', dir]);
    expect(ready.api_key).toMatch(/^sk_test_/);
    const stderr = await refused(['--data', dir]);
    expect(stderr).toContain(`is in use by another sandbox server (pid ${child.process.pid})`);
  });

  it('tolerates a last journal line of the old layout cut short (a kill mid-write), and says so', async () => {
    const dir = legacyFolder();
    appendFileSync(path.join(dir, 'journal.ndjson'), '{"seq":99,"writtenAt":1,"state":{"form');
    const { child, ready } = await serve(['--data', dir]);
    await waitFor(child, () => (child.stderr().includes('listening on') ? true : undefined), 'the start-up log');
    expect(child.stderr()).toMatch(/dropped a cut-short last journal line of 38 bytes/);
    const res = await fetch(`${ready.url}/v1/webhook_endpoints?limit=10`, { headers: { authorization: `Bearer ${ready.api_key}` } });
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(1);
  });

  it('without the SQLite package: exit code 5, and what to install', async () => {
    // The built CLI beside every installed package but libsql, as a client-only install has it.
    const root = tempDir();
    cpSync(path.dirname(CLI), path.join(root, 'dist'), { recursive: true });
    writeFileSync(path.join(root, 'package.json'), readFileSync(new URL('../../../package.json', import.meta.url)));
    const modules = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
    mkdirSync(path.join(root, 'node_modules'));
    for (const name of readdirSync(modules)) {
      if (name === 'libsql' || name === '@libsql' || name === '.bin') continue;
      symlinkSync(path.join(modules, name), path.join(root, 'node_modules', name));
    }
    const dir = path.join(tempDir(), 'data');
    const child = run(['serve', '--port', '0', '--data', dir], {}, path.join(root, 'dist', 'cli.js'));
    expect(await exitCode(child)).toBe(5);
    expect(child.stdout()).toBe('');
    expect(child.stderr()).toContain('through the package libsql, which is not installed');
    expect(child.stderr()).toContain('npm install libsql@"^0.5.29"');
    // Nothing was made: not the folder, nor an empty data.db in an existing one (issue 36).
    expect(existsSync(dir)).toBe(false);
    const existing = tempDir();
    const again = run(['serve', '--port', '0', '--data', existing], {}, path.join(root, 'dist', 'cli.js'));
    expect(await exitCode(again)).toBe(5);
    expect(readdirSync(existing)).toEqual([]);
    // And without --data the same install serves from memory.
    const memory = run(['serve', '--port', '0'], {}, path.join(root, 'dist', 'cli.js'));
    await waitFor(memory, () => (memory.stdout().includes('\n') ? true : undefined), 'the ready line');
    memory.process.kill('SIGTERM');
    expect(await exitCode(memory)).toBe(0);
  });

  it('without --data, nothing is written', async () => {
    const dir = tempDir();
    const child = run(['serve', '--port', '0'], { TMPDIR: dir, HOME: dir });
    await waitFor(child, () => (child.stdout().includes('\n') ? true : undefined), 'the ready line');
    child.process.kill('SIGTERM');
    expect(await exitCode(child)).toBe(0);
    expect(readdirSync(dir)).toEqual([]);
  });
});
