/**
 * The data folder's layout before the database (pix-usdt up to 0.1): `snapshot.json`, the whole
 * state after journal line `seq`, and `journal.ndjson`, one line per group of answered mutations
 * (the platform fields and the state or the changes of each tenant touched). It is only read
 * now: the first start on such a folder imports it into the database (src/server/data/store.ts)
 * and renames the two files. A damaged or foreign file stops the start with {@link DataError},
 * untouched; the one damage tolerated is a journal whose last line is cut short (a kill
 * mid-write: that mutation was never answered). So does a state whose API keys are not each one
 * tenant's own (a secret or a key id twice, a key filed under another tenant): imported, such a
 * key would open a tenant it does not belong to.
 * @module
 */
import type { SnapshotRecords, TenantRecords } from '../../sandbox/sandbox.js';
import { DataError, type DataFolder } from './folder.js';

/** The two files of the old layout, and what marks them. */
export const LEGACY_SNAPSHOT = 'snapshot.json';
export const LEGACY_JOURNAL = 'journal.ndjson';
const DATA_FORMAT = 'pix-usdt-sandbox-data';
const DATA_VERSION = 1;
const JOURNAL_FORMAT = 'pix-usdt-sandbox-journal';

interface SnapshotFile {
  format: typeof DATA_FORMAT;
  version: typeof DATA_VERSION;
  /** The last journal entry the snapshot includes. */
  seq: number;
  /** Wall-clock time of the write (ms): clocks that follow real time move on by the downtime. */
  writtenAt: number;
  snapshot: SnapshotRecords;
}

interface JournalEntry {
  seq: number;
  writtenAt: number;
  /** The platform fields and the touched tenants (a {@link SnapshotRecords} with only those). */
  state: SnapshotRecords;
}

/** A tenant in a journal line: its whole state, or (`delta: true`) what changed since the previous line. */
type TenantChange = TenantRecords & { delta?: true };

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

function isSnapshot(value: unknown): value is SnapshotRecords {
  return isObject(value) && value['format'] === 'pix-usdt-sandbox' && value['version'] === 1 && Array.isArray(value['tenants']);
}

function readSnapshot(folder: DataFolder): SnapshotFile {
  const file = folder.file(LEGACY_SNAPSHOT);
  const text = folder.readText(LEGACY_SNAPSHOT);
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
  const file = folder.file(LEGACY_JOURNAL);
  const text = folder.readText(LEGACY_JOURNAL);
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
  readonly idempotency = new Map<string, TenantRecords['idempotency'][number]>();
  events: TenantRecords['events'] = [];
  constructor(
    public last: TenantRecords,
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

  result(realTime: boolean, now: number): TenantRecords {
    const sorted = (i: number): Rec[] => [...(this.records[i] as Map<string, Rec>).values()].sort((a, b) => a.seq - b.seq);
    const { delta: _, ...rest } = this.last as TenantChange;
    return {
      ...rest,
      // A clock that follows real time moved on while the server was down.
      now: realTime ? new Date(Date.parse(rest.now) + Math.max(0, now - this.writtenAt)).toISOString() : rest.now,
      users: sorted(0) as TenantRecords['users'],
      quotes: sorted(1) as TenantRecords['quotes'],
      conversions: sorted(2) as TenantRecords['conversions'],
      transactions: sorted(3) as TenantRecords['transactions'],
      idempotency: [...this.idempotency.values()],
      events: this.events,
    };
  }
}

/** The state a snapshot plus journal entries describe (each entry holds whole tenants or their changes). */
function compose(base: SnapshotFile, entries: readonly JournalEntry[], realTime: boolean, now = Date.now()): SnapshotRecords {
  const tenants = new Map<string, TenantWork>();
  for (const t of base.snapshot.tenants) tenants.set(t.id, new TenantWork(t, base.writtenAt));
  let platform: SnapshotRecords = base.snapshot;
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

/** What an old-layout folder holds: the composed state, and what was read to compose it. */
export interface LegacyState {
  snapshot: SnapshotRecords;
  /** Journal lines after the snapshot, and the bytes of a cut-short last line dropped. */
  entries: number;
  tornBytes: number;
  /** The files read (to rename once the import has committed). */
  files: string[];
}

/**
 * Refuses a state in which an API key is not one tenant's own: every secret and every key id
 * once across all tenants, and each key filed under the tenant it names. Secrets are never
 * printed; the message names the tenants and the key ids.
 */
export function checkKeys(snapshot: SnapshotRecords, where: string): void {
  const secrets = new Map<string, { tenant: string; key: string }>();
  const ids = new Map<string, string>();
  const refuse = (detail: string): DataError =>
    new DataError(`${where} cannot be imported: ${detail}. Imported, a key would open a tenant it does not belong to. The files are left as they are: correct them, or move them away to start afresh.`);
  for (const tenant of snapshot.tenants) {
    const keys: unknown = tenant.keys;
    if (!Array.isArray(keys)) throw refuse(`tenant ${tenant.id} has no list of API keys`);
    for (const key of keys as SnapshotRecords['tenants'][number]['keys']) {
      if (key.tenantId !== tenant.id) throw refuse(`API key ${key.id} is filed under tenant ${tenant.id} but names tenant ${key.tenantId}`);
      const other = secrets.get(key.secret);
      if (other !== undefined) {
        const whose = other.tenant === tenant.id ? `twice in tenant ${tenant.id}` : `in tenants ${other.tenant} and ${tenant.id}`;
        throw refuse(`API keys ${other.key} and ${key.id} have the same secret, ${whose}`);
      }
      secrets.set(key.secret, { tenant: tenant.id, key: key.id });
      const holder = ids.get(key.id);
      if (holder !== undefined) throw refuse(`the API key id ${key.id} is used twice (tenants ${holder} and ${tenant.id})`);
      ids.set(key.id, tenant.id);
    }
  }
}

/**
 * Reads a folder in the old layout; `null` when it has neither file. Throws {@link DataError}
 * for a damaged or foreign file, a newer format, a journal without its snapshot, or API keys
 * that are not each one tenant's own ({@link checkKeys}).
 */
export function readLegacy(folder: DataFolder, realTime: boolean): LegacyState | null {
  const snapshotFile = folder.file(LEGACY_SNAPSHOT);
  const journalFile = folder.file(LEGACY_JOURNAL);
  const hasSnapshot = folder.has(LEGACY_SNAPSHOT);
  const hasJournal = folder.has(LEGACY_JOURNAL);
  if (!hasSnapshot && !hasJournal) return null;
  if (!hasSnapshot) {
    throw new DataError(`${journalFile} has no ${LEGACY_SNAPSHOT} beside it (it was moved or deleted). Put it back, or move the journal away to start afresh.`);
  }
  const base = readSnapshot(folder);
  const { entries, tornBytes } = hasJournal ? readJournal(folder) : { entries: [], tornBytes: 0 };
  const snapshot = compose(base, entries, realTime);
  checkKeys(snapshot, hasJournal ? `${snapshotFile} with ${journalFile}` : snapshotFile);
  return {
    snapshot,
    entries: entries.filter((e) => e.seq > base.seq).length,
    tornBytes,
    files: hasJournal ? [snapshotFile, journalFile] : [snapshotFile],
  };
}
