/**
 * The data folder's rules (issue 27), as the folder behaves: nothing is written or read through
 * a symbolic link (a planted temporary file, the target itself, the lock), the folder is 700 and
 * its files 600 under the usual umask 022, and a folder others can write to is refused. First
 * the module every storage engine uses (src/server/data/folder.ts), then `serve --data` over it.
 */
import { spawn } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataError, DataFolder } from '../../../src/server/data/folder.js';
import { lockHolder } from '../../../src/server/data/lock.js';
import { openDataStore } from '../../../src/server/data/store.js';
import { CLI, assertBuilt } from '../helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch folder holding `data/` (the data folder, 700) and `outside` (a file a link points at). */
function scratch(): { root: string; data: string; outside: string } {
  const root = mkdtempSync(path.join(tmpdir(), 'pix-usdt-folder-'));
  dirs.push(root);
  const data = path.join(root, 'data');
  mkdirSync(data, { mode: 0o700 });
  chmodSync(data, 0o700);
  const outside = path.join(root, 'outside');
  writeFileSync(outside, 'not the sandbox\'s\n');
  return { root, data, outside };
}

const mode = (file: string): string => (statSync(file).mode & 0o777).toString(8);
const isLink = (file: string): boolean => lstatSync(file).isSymbolicLink();

describe('DataFolder', () => {
  it('writeAtomic replaces a planted temporary link, never writes through it; the file is 600', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'snapshot.json.tmp'));
    const folder = DataFolder.open(data);
    folder.writeAtomic('snapshot.json', '{"secret":"whsec_x"}');
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
    expect(isLink(path.join(data, 'snapshot.json'))).toBe(false);
    expect(readFileSync(path.join(data, 'snapshot.json'), 'utf8')).toBe('{"secret":"whsec_x"}');
    expect(mode(path.join(data, 'snapshot.json'))).toBe('600');
    expect(readdirSync(data)).toEqual(['snapshot.json']);
  });

  it('writeAtomic over a link in the target\'s place replaces the link, not its target', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'journal.ndjson'));
    DataFolder.open(data).writeAtomic('journal.ndjson', 'header\n');
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
    expect(isLink(path.join(data, 'journal.ndjson'))).toBe(false);
  });

  it('reading, appending and exclusive creation refuse a link by name', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'journal.ndjson'));
    const folder = DataFolder.open(data);
    expect(() => folder.openAppend('journal.ndjson')).toThrow(DataError);
    expect(() => folder.openAppend('journal.ndjson')).toThrow(`${path.join(data, 'journal.ndjson')} is a symbolic link`);
    expect(() => folder.read('journal.ndjson')).toThrow('is a symbolic link');
    expect(() => folder.has('journal.ndjson')).toThrow('is a symbolic link');
    expect(() => folder.createExclusive('journal.ndjson')).toThrow(expect.objectContaining({ code: 'EEXIST' }));
    expect(() => folder.prepareFile('journal.ndjson')).toThrow('is a symbolic link');
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
  });

  it('prepareFile leaves a regular file for an engine that opens its own files: new ones 600, existing ones as they are until restricted', () => {
    const { data } = scratch();
    const folder = DataFolder.open(data);
    const file = folder.prepareFile('sandbox.db');
    expect(file).toBe(path.join(folder.path, 'sandbox.db'));
    expect(mode(file)).toBe('600');
    writeFileSync(path.join(data, 'old.db'), 'x', { mode: 0o644 });
    chmodSync(path.join(data, 'old.db'), 0o644);
    // Not changed before the engine has checked it is its own; then narrowed.
    expect(mode(folder.prepareFile('old.db'))).toBe('644');
    folder.restrict('old.db');
    expect(mode(path.join(data, 'old.db'))).toBe('600');
    expect(readFileSync(path.join(data, 'old.db'), 'utf8')).toBe('x');
    // A file made read-only is refused, its mode left as it is.
    chmodSync(path.join(data, 'old.db'), 0o400);
    expect(() => folder.prepareFile('old.db')).toThrow(`${path.join(folder.path, 'old.db')} is read-only (mode 400)`);
    expect(mode(path.join(data, 'old.db'))).toBe('400');
    expect(() => folder.file('../escape')).toThrow('Not a file name');
  });

  it('creates a missing folder 700 (and its parents) and refuses one the group or others can write to', () => {
    const { root } = scratch();
    const created = DataFolder.open(path.join(root, 'a', 'b'));
    expect(created.created).toBe(true);
    expect(mode(created.path)).toBe('700');

    const shared = path.join(root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o770);
    expect(() => DataFolder.open(shared)).toThrow(`The data folder ${shared} can be written by its group (mode 770)`);
    expect(() => DataFolder.open(shared)).toThrow(`chmod 700 ${shared}`);
    chmodSync(shared, 0o1777);
    expect(() => DataFolder.open(shared)).toThrow('can be written by any user (mode 777)');
    chmodSync(shared, 0o755);
    expect(DataFolder.open(shared).created).toBe(false);
    expect(mode(shared)).toBe('755'); // an existing folder is not changed
  });
});

describe('serve --data over the folder rules', () => {
  const sandboxOptions = { now: '2026-11-21T12:00:00Z' };

  it('a database, or a side file SQLite opens itself, that is a link is refused by name; nothing is written through it', () => {
    for (const name of ['data.db', 'data.db-wal', 'data.db-shm']) {
      const { data, outside } = scratch();
      symlinkSync(outside, path.join(data, name));
      expect(() => openDataStore(data, sandboxOptions)).toThrow(`${path.join(data, name)} is a symbolic link`);
      expect(readdirSync(data)).toEqual([name]);
      expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
    }
  });

  it('a stale temporary file that is a link is left alone (neither read nor followed); the folder is new', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'snapshot.json.tmp'));
    const store = openDataStore(data, sandboxOptions);
    try {
      expect(store.origin).toBe('new');
    } finally {
      store.close();
    }
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
    expect(isLink(path.join(data, 'snapshot.json.tmp'))).toBe(true);
    expect(isLink(path.join(data, 'data.db'))).toBe(false);
  });

  it('a lock that is a link is taken over without writing through it', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'lock'));
    const store = openDataStore(data, sandboxOptions);
    expect(isLink(path.join(data, 'lock'))).toBe(false);
    expect(lockHolder(readFileSync(path.join(data, 'lock')))).toBe(process.pid);
    store.close();
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
  });

  it('a snapshot.json that is a link is refused by name, and nothing is written', () => {
    const { data, outside } = scratch();
    symlinkSync(outside, path.join(data, 'snapshot.json'));
    expect(() => openDataStore(data, sandboxOptions)).toThrow(`${path.join(data, 'snapshot.json')} is a symbolic link`);
    expect(readdirSync(data)).toEqual(['snapshot.json']);
    expect(readFileSync(outside, 'utf8')).toBe('not the sandbox\'s\n');
  });

  it('the real binary under umask 022: the folder is 700 and every file 600; a group-writable folder is refused', async () => {
    assertBuilt();
    const { root } = scratch();
    const data = path.join(root, 'new-data');
    // umask is per process (and unsupported in worker threads): set it in a shell, then exec the server.
    const serve = async (dir: string): Promise<{ code: number | null; stdout: string; stderr: string; files: Record<string, string> }> => {
      const child = spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$1" serve --port 0 --data "$2"', process.execPath, CLI, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let files: Record<string, string> = {};
      child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        stdout += c;
        if (!stdout.includes('\n')) return;
        // Listening: the database and the lock exist now (SQLite's side files too, while open).
        files = Object.fromEntries(readdirSync(dir).map((name) => [name, mode(path.join(dir, name))]));
        child.kill('SIGTERM');
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
      clearTimeout(timer);
      return { code, stdout, stderr, files };
    };
    const first = await serve(data);
    expect(first.stderr).not.toContain('cannot start');
    expect(first.code).toBe(0);
    expect(mode(data)).toBe('700');
    expect(first.files).toMatchObject({ 'data.db': '600', lock: '600' });
    for (const [name, fileMode] of Object.entries(first.files)) expect(fileMode, name).toBe('600');
    for (const name of readdirSync(data)) expect(mode(path.join(data, name)), name).toBe('600');

    chmodSync(data, 0o770);
    const refused = await serve(data);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain(`The data folder ${data} can be written by its group (mode 770)`);
  }, 45_000);
});
