/**
 * `serve --data DIR`: the sandbox's whole state on disk, so that a restart (clean or `kill -9`)
 * loses no answered mutation. Two files and a lock:
 *
 * - `snapshot.json`: `{ format: 'pix-usdt-sandbox-data', version: 1, seq, writtenAt, snapshot }`,
 *   the whole state (a {@link SandboxSnapshot}) after journal entry `seq`. Written whole to a
 *   temporary file, flushed, then renamed over the old one: it is either the old or the new.
 * - `journal.ndjson`: a header line, then one line per commit: the platform fields and the full
 *   state of every tenant a mutation touched since the previous line. The line is written
 *   (`writeSync`) before the answers it covers leave, so a process killed at any instant has
 *   every answered mutation on disk (the kernel keeps written data when a process dies). Entries
 *   hold state, not requests: nothing is replayed, so no ids, clocks or receivers need to behave
 *   as they did the first time.
 * - `lock`: the pid of the server using the folder (a dead pid's lock is taken over).
 *
 * Every file goes through {@link DataFolder} (src/server/data-folder.ts): the folder `700`, files
 * `600` created exclusively, nothing read or written through a symbolic link.
 *
 * At start the snapshot plus the journal's later entries are the state; it is compacted into a
 * new snapshot (and an empty journal) at once, when the journal outgrows the snapshot, and at a
 * clean stop. A damaged or foreign file stops the start with {@link DataError}, untouched; the
 * one damage tolerated is a journal whose last line is cut short (a kill mid-write: that
 * mutation was never answered).
 * @module
 */
import fs from 'node:fs';
import type { SandboxSnapshot, TenantSnapshot } from '../sandbox/index.js';
import { SandboxImpl, type TenantChange } from '../sandbox/sandbox.js';
import type { SandboxOptions } from '../sandbox/types.js';
import { DataError, DataFolder, TEMP_SUFFIX, describeFsError as describe, writeAll } from './data-folder.js';
import { processAlive } from './process.js';

export { DataError } from './data-folder.js';

/** What marks our snapshot file, and the version this code writes and reads. */
export const DATA_FORMAT = 'pix-usdt-sandbox-data';
export const DATA_VERSION = 1;
const JOURNAL_FORMAT = 'pix-usdt-sandbox-journal';

interface SnapshotFile {
  format: typeof DATA_FORMAT;
  version: typeof DATA_VERSION;
  /** The last journal entry the snapshot includes. */
  seq: number;
  /** Wall-clock time of the write (ms): clocks that follow real time move on by the downtime. */
  writtenAt: number;
  snapshot: SandboxSnapshot;
}

interface JournalEntry {
  seq: number;
  writtenAt: number;
  /** The platform fields and the touched tenants (a {@link SandboxSnapshot} with only those). */
  state: SandboxSnapshot;
}

/** A sandbox whose state lives in a data folder. */
export interface DataStore {
  sandbox: SandboxImpl;
  /** The folder, resolved. */
  dir: string;
  /** Where the state came from: `new` (empty folder) or `restored`. */
  origin: 'new' | 'restored';
  /** Journal entries read at start, and the bytes of a cut-short last line dropped. */
  replayed: { entries: number; tornBytes: number };
  /** Writes a snapshot now and empties the journal. */
  compact(): void;
  /** Compacts, then releases the folder (a clean stop). */
  close(): void;
}

const SNAPSHOT = 'snapshot.json';
const JOURNAL = 'journal.ndjson';
const LOCK = 'lock';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Checks the marks of a file: ours, and a version this code reads. */
function checkMark(value: unknown, file: string, format: string): void {
  const what = `${file} is not a pix-usdt sandbox data file`;
  if (!isObject(value) || value['format'] !== format) {
    throw new DataError(`${what} (no "format": "${format}"). Point --data at an empty folder or at one a pix-usdt sandbox server wrote; this file is left as it is.`);
  }
  const version = value['version'];
  if (typeof version !== 'number' || !Number.isInteger(version)) throw new DataError(`${file} has no valid format version. The file is left as it is.`);
  if (version > DATA_VERSION) {
    throw new DataError(`${file} was written by a newer pix-usdt (data format version ${version}; this one reads version ${DATA_VERSION}). Upgrade pix-usdt, or use another --data folder; the file is left as it is.`);
  }
  if (version !== DATA_VERSION) throw new DataError(`${file} has an unknown data format version ${version}. The file is left as it is.`);
}

function damaged(file: string, detail: string): DataError {
  return new DataError(`${file} is damaged (${detail}). It is left as it is: move it away to start afresh, or restore it from a backup.`);
}

function isSnapshot(value: unknown): value is SandboxSnapshot {
  return isObject(value) && value['format'] === 'pix-usdt-sandbox' && value['version'] === 1 && Array.isArray(value['tenants']);
}

function readSnapshot(folder: DataFolder): SnapshotFile {
  const file = folder.file(SNAPSHOT);
  const text = folder.readText(SNAPSHOT);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // A JSON document that does not parse: ours cut short, or not JSON at all.
    throw damaged(file, text.trimStart().startsWith('{') ? 'it is not complete JSON' : 'it is not JSON');
  }
  checkMark(value, file, DATA_FORMAT);
  const v = value as Record<string, unknown>;
  if (typeof v['seq'] !== 'number' || typeof v['writtenAt'] !== 'number' || !isSnapshot(v['snapshot'])) throw damaged(file, 'fields are missing');
  return value as SnapshotFile;
}

/** The journal's entries; a last line cut short (no newline, not JSON) is dropped. */
function readJournal(folder: DataFolder): { entries: JournalEntry[]; tornBytes: number } {
  const file = folder.file(JOURNAL);
  const text = folder.readText(JOURNAL);
  const lines = text.split('\n');
  const tail = lines.pop() as string;
  // Every line is written whole with its newline before any answer it covers leaves: a tail
  // without one is a write a kill cut short, of mutations no one was answered. The header is
  // written whole (temporary file and rename), so a journal always has it.
  const tornBytes = Buffer.byteLength(tail);
  if (lines.length === 0) throw damaged(file, 'it has no header line');
  let header: unknown;
  try {
    header = JSON.parse(lines[0] as string);
  } catch {
    throw new DataError(`${file} is not a pix-usdt sandbox journal (its first line is not JSON). It is left as it is.`);
  }
  checkMark(header, file, JOURNAL_FORMAT);
  const entries: JournalEntry[] = [];
  for (let i = 1; i < lines.length; i++) {
    let entry: unknown;
    try {
      entry = JSON.parse(lines[i] as string);
    } catch {
      throw damaged(file, `line ${i + 1} is not JSON`);
    }
    if (!isObject(entry) || typeof entry['seq'] !== 'number' || typeof entry['writtenAt'] !== 'number' || !isSnapshot(entry['state'])) {
      throw damaged(file, `line ${i + 1} is not a journal entry`);
    }
    entries.push(entry as unknown as JournalEntry);
  }
  return { entries, tornBytes };
}

type Rec = { id: string; seq: number };
const COLLECTIONS = ['users', 'quotes', 'conversions', 'transactions'] as const;

/** A tenant being composed: its records by id, idempotency records by key, events in order. */
class TenantWork {
  readonly records = COLLECTIONS.map(() => new Map<string, Rec>());
  readonly idempotency = new Map<string, TenantSnapshot['idempotency'][number]>();
  events: TenantSnapshot['events'] = [];
  constructor(
    public last: TenantSnapshot,
    public writtenAt: number,
  ) {
    this.apply(last, writtenAt);
  }

  apply(t: TenantChange, writtenAt: number): void {
    if (t.delta !== true) {
      for (const map of this.records) map.clear();
      this.idempotency.clear();
      this.events = [];
    }
    COLLECTIONS.forEach((name, i) => {
      const map = this.records[i] as Map<string, Rec>;
      for (const r of t[name] as Rec[]) map.set(r.id, r);
    });
    for (const r of t.idempotency) this.idempotency.set(r.key, r);
    this.events = this.events.concat(t.events);
    this.last = t;
    this.writtenAt = writtenAt;
  }

  result(realTime: boolean, now: number): TenantSnapshot {
    const sorted = (i: number): Rec[] => [...(this.records[i] as Map<string, Rec>).values()].sort((a, b) => a.seq - b.seq);
    const { delta: _, ...rest } = this.last as TenantChange;
    return {
      ...rest,
      // A clock that follows real time moved on while the server was down.
      now: realTime ? new Date(Date.parse(rest.now) + Math.max(0, now - this.writtenAt)).toISOString() : rest.now,
      users: sorted(0) as TenantSnapshot['users'],
      quotes: sorted(1) as TenantSnapshot['quotes'],
      conversions: sorted(2) as TenantSnapshot['conversions'],
      transactions: sorted(3) as TenantSnapshot['transactions'],
      idempotency: [...this.idempotency.values()],
      events: this.events,
    };
  }
}

/** The state a snapshot plus journal entries describe (each entry holds whole tenants or their changes). */
export function compose(base: SnapshotFile, entries: readonly JournalEntry[], realTime: boolean, now = Date.now()): SandboxSnapshot {
  const tenants = new Map<string, TenantWork>();
  for (const t of base.snapshot.tenants) tenants.set(t.id, new TenantWork(t, base.writtenAt));
  let platform: SandboxSnapshot = base.snapshot;
  for (const entry of entries) {
    if (entry.seq <= base.seq) continue; // already in the snapshot (a stop between the two writes)
    platform = entry.state;
    for (const t of entry.state.tenants as TenantChange[]) {
      const work = tenants.get(t.id);
      if (work === undefined) tenants.set(t.id, new TenantWork(t, entry.writtenAt));
      else work.apply(t, entry.writtenAt);
    }
  }
  return { ...platform, tenants: [...tenants.values()].map((w) => w.result(realTime, now)) };
}

/** Takes the folder's lock (a server killed with -9 leaves a lock whose pid is gone: taken over). */
function lock(folder: DataFolder): void {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = folder.createExclusive(LOCK);
      try {
        writeAll(fd, `${process.pid}\n`);
      } finally {
        fs.closeSync(fd);
      }
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new DataError(`Cannot write in ${folder.path}: ${describe(error)}. Give --data a folder this user can write to.`);
      }
      // Read without following a link: a lock that is not a regular file is not a server's.
      let pid = Number.NaN;
      try {
        pid = Number.parseInt(folder.readText(LOCK), 10);
      } catch (readError) {
        if (!(readError instanceof DataError)) throw readError;
      }
      if (Number.isInteger(pid) && pid !== process.pid && processAlive(pid)) {
        throw new DataError(`${folder.path} is in use by another sandbox server (pid ${pid}). Stop it, or give --data another folder.`);
      }
      folder.remove(LOCK);
    }
  }
  throw new DataError(`Cannot take the lock ${folder.file(LOCK)}. Remove it if no server uses ${folder.path}.`);
}

/** Options of {@link openDataStore}. */
export interface DataStoreOptions {
  /** Compact once the journal is this many bytes and larger than the last snapshot (default 8 MB). */
  compactBytes?: number;
  /** Called when a write fails (the answers it covered become 500s). */
  onError?: (error: unknown) => void;
}

/**
 * Opens (or creates) a data folder and the sandbox over it. Throws {@link DataError} when the
 * folder or a file in it cannot be used; nothing in the folder is changed then.
 */
export function openDataStore(dirArg: string, sandboxOptions: SandboxOptions, options: DataStoreOptions = {}): DataStore {
  const compactBytes = options.compactBytes ?? 8_000_000;
  // Created 700 when missing; refused when others can write to it.
  const folder = DataFolder.open(dirArg);
  const dir = folder.path;
  const snapshotFile = folder.file(SNAPSHOT);
  const journalFile = folder.file(JOURNAL);
  // A link (or anything but a regular file) in place of either is refused by name.
  const hasSnapshot = folder.has(SNAPSHOT);
  const hasJournal = folder.has(JOURNAL);
  // Read and check everything before writing anything (the lock included).
  let restored: SandboxSnapshot | null = null;
  let seq = 0;
  const replayed = { entries: 0, tornBytes: 0 };
  if (hasSnapshot) {
    const base = readSnapshot(folder);
    const { entries, tornBytes } = hasJournal ? readJournal(folder) : { entries: [], tornBytes: 0 };
    restored = compose(base, entries, sandboxOptions.now === undefined);
    seq = Math.max(base.seq, ...entries.map((e) => e.seq));
    replayed.entries = entries.filter((e) => e.seq > base.seq).length;
    replayed.tornBytes = tornBytes;
  } else if (hasJournal) {
    throw new DataError(`${journalFile} has no ${SNAPSHOT} beside it (it was moved or deleted). Put it back, or move the journal away to start afresh.`);
  } else {
    // Stale temporary files are removed before they are created again, links included.
    const foreign = folder.names().filter((name) => name !== LOCK && !name.startsWith('.') && !name.endsWith(TEMP_SUFFIX));
    if (foreign.length > 0) {
      throw new DataError(`${dir} holds files that are not a sandbox's (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}). Give --data an empty or new folder; nothing there is touched.`);
    }
  }
  lock(folder);
  let journalFd: number | null = null;
  let journalBytes = 0;
  let snapshotBytes = 0;
  const dirty = new Set<string>();
  let known = new Set<string>();
  let pending: Promise<void> | null = null;
  let broken: unknown = null;

  const sandbox = new SandboxImpl(sandboxOptions, { onCommit: (tenantId) => commit(tenantId) });
  if (restored !== null) {
    try {
      sandbox.restore(restored);
    } catch (error) {
      folder.remove(LOCK);
      throw new DataError(`${snapshotFile} cannot be loaded: ${(error as Error).message} The files are left as they are.`);
    }
  }
  known = new Set(sandbox.tenantIds());
  // State changes without a request (timers, deliveries) reach the journal with the next line.
  sandbox.on('event', (_event, tenantId) => {
    if (journalFd === null) return;
    dirty.add(tenantId);
    schedule();
  });

  function openJournal(): void {
    const header = `${JSON.stringify({ format: JOURNAL_FORMAT, version: DATA_VERSION })}\n`;
    folder.writeAtomic(JOURNAL, header);
    journalFd = folder.openAppend(JOURNAL);
    journalBytes = header.length;
  }

  function compact(): void {
    if (journalFd !== null) fs.closeSync(journalFd);
    journalFd = null;
    const file: SnapshotFile = { format: DATA_FORMAT, version: DATA_VERSION, seq, writtenAt: Date.now(), snapshot: sandbox.journal(sandbox.tenantIds(), true) };
    const text = JSON.stringify(file);
    // Snapshot first, journal second: a stop in between leaves entries the snapshot's seq skips.
    folder.writeAtomic(SNAPSHOT, text);
    snapshotBytes = text.length;
    dirty.clear();
    openJournal();
  }

  function flush(): void {
    pending = null;
    if (journalFd === null) return;
    const ids = sandbox.tenantIds();
    if (ids.length !== known.size) {
      for (const id of ids) if (!known.has(id)) dirty.add(id);
      known = new Set(ids);
    }
    seq++;
    const line = `${JSON.stringify({ seq, writtenAt: Date.now(), state: sandbox.journal(dirty, false) })}\n`;
    dirty.clear();
    writeAll(journalFd, line);
    journalBytes += line.length;
    if (journalBytes > compactBytes && journalBytes > snapshotBytes) compact();
  }

  // One line for every commit of the same turn of the event loop (a group commit).
  function schedule(): Promise<void> {
    pending ??= new Promise<void>((resolve, reject) => {
      setImmediate(() => {
        try {
          flush();
          resolve();
        } catch (error) {
          broken = error;
          options.onError?.(error);
          reject(new Error('The sandbox could not write its data folder.'));
        }
      });
    });
    return pending;
  }

  function commit(tenantId: string): Promise<void> {
    if (broken !== null) return Promise.reject(new Error('The sandbox could not write its data folder.'));
    dirty.add(tenantId);
    return schedule();
  }

  try {
    compact();
  } catch (error) {
    folder.remove(LOCK);
    if (error instanceof DataError) throw error;
    throw new DataError(`Cannot write in ${dir}: ${describe(error)}. Give --data a folder this user can write to.`);
  }

  return {
    sandbox,
    dir,
    origin: restored === null ? 'new' : 'restored',
    replayed,
    compact,
    close() {
      // The snapshot holds everything: commits still waiting for their line are in it.
      compact();
      if (journalFd !== null) fs.closeSync(journalFd);
      journalFd = null;
      folder.remove(LOCK);
    },
  };
}
