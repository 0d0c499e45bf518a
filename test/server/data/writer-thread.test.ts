/**
 * `serve --data`'s group commits on a thread of their own (server/data/writer.ts): the thread
 * writes what the main thread would, row for row; a read and a close wait for what was handed to
 * it; concurrent answers are all written before they leave; and captures taken while another is
 * being written are written each on its own (core/persist.ts).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { StoredEventLog } from '../../../src/sandbox/core/persist.js';
import { RestoredEvent } from '../../../src/sandbox/core/event-log.js';
import type { SandboxOptions } from '../../../src/sandbox/index.js';
import type { SandboxStorage } from '../../../src/sandbox/storage/port.js';
import type { SqlValue } from '../../../src/sandbox/storage/sql.js';
import { inspectSqlite } from '../../../src/server/data/driver.js';
import type { DataStore } from '../../../src/server/data/store.js';
import { approvedUser, cpf, onrampBody } from '../../support/fixtures.js';
import { storeScratch } from './scratch.js';

const OPTIONS: SandboxOptions = { seed: 'writer', now: '2026-03-02T12:00:00.000Z', quoteRateLimit: 0 };
const { tempDir, open, closed } = storeScratch('pix-usdt-writer-', OPTIONS);

const TABLES: Record<string, string> = {
  tenants: 'SELECT id, state, wake_at FROM inspected.tenants ORDER BY created',
  api_keys: 'SELECT secret, tenant, id, data FROM inspected.api_keys ORDER BY secret',
  records: 'SELECT tenant, kind, seq, id, data FROM inspected.records ORDER BY tenant, kind, seq',
  usage: 'SELECT tenant, bucket, amount FROM inspected.usage ORDER BY tenant, bucket',
  idempotency: 'SELECT tenant, key, data FROM inspected.idempotency ORDER BY tenant, key',
  events: 'SELECT tenant, seq, data FROM inspected.events ORDER BY tenant, seq',
};

// Real time moves on between two runs: every instant is written as one mark.
const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const normal = (value: SqlValue): SqlValue => (typeof value === 'string' ? value.replace(ISO, 'T') : value);

/**
 * Every row of the tables the sandbox writes, after a clean stop (the file alone). The client's
 * own Idempotency-Keys are random: an idempotency row is compared without its key, in the order
 * of what is left.
 */
function rows(store: DataStore): Record<string, unknown[]> {
  store.close();
  closed(store);
  const tables: Record<string, unknown[]> = inspectSqlite(store.file, 'file', (driver) =>
    Object.fromEntries(Object.entries(TABLES).map(([table, sql]) => [table, driver.all(sql).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, normal(v)])))])),
  );
  tables['idempotency'] = (tables['idempotency'] as Array<{ tenant: string; key: string; data: string }>).map((r) => `${r.tenant} ${r.data.split(r.key).join('K')}`).sort();
  return tables;
}

/** One tenant's whole lifecycle, and some of it in parallel, through the client. */
async function script(store: DataStore): Promise<void> {
  const client = new PixUsdt({ apiKey: store.sandbox.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
  const userId = await approvedUser(client, 1);
  const quote = await client.quotes.create(onrampBody(userId));
  await client.quotes.accept(quote.id, undefined, { idempotencyKey: 'accept-1' });
  await client.quotes.accept(quote.id, undefined, { idempotencyKey: 'accept-1' });
  // Answers of one turn and the next, some while a commit is on the thread.
  await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      client.users.create({ external_id: `p-${i}`, name: `Parallel ${i}`, document_type: 'cpf', document_number: cpf(100 + i) }, { idempotencyKey: `p-${i}` }),
    ),
  );
}

describe('the writer thread', () => {
  it('writes what the main thread writes, row for row', async () => {
    const main = open(tempDir(), OPTIONS, { writerThread: false });
    await script(main);
    const threaded = open(tempDir(), OPTIONS);
    await script(threaded);
    const expected = rows(main);
    expect(expected['records']?.length).toBeGreaterThan(10);
    const got = rows(threaded);
    expect(got).toEqual(expected);
  });

  it('writes every answer before it leaves: all of them are there after a reopen, replays the same bytes', async () => {
    const dir = tempDir();
    const store = open(dir);
    const headers = { authorization: `Bearer ${store.sandbox.apiKey}`, 'content-type': 'application/json' };
    const create = (i: number): Promise<Response> =>
      store.sandbox.fetch('/v1/users', {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': `c-${i}` },
        body: JSON.stringify({ external_id: `c-${i}`, name: `Concurrent ${i}`, document_type: 'cpf', document_number: cpf(200 + i) }),
      });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => create(i)));
    const bodies = await Promise.all(answers.map((a) => a.text()));
    expect(answers.every((a) => a.status === 201)).toBe(true);
    store.close();
    closed(store);
    // A clean stop with the thread closed first folds the log into the file: one file left.
    expect(existsSync(path.join(dir, 'data.db-wal'))).toBe(false);

    const again = open(dir);
    const replays = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        again.sandbox.fetch('/v1/users', {
          method: 'POST',
          headers: { authorization: `Bearer ${again.sandbox.apiKey}`, 'content-type': 'application/json', 'idempotency-key': `c-${i}` },
          body: JSON.stringify({ external_id: `c-${i}`, name: `Concurrent ${i}`, document_type: 'cpf', document_number: cpf(200 + i) }),
        }),
      ),
    );
    expect(replays.every((r) => r.headers.get('idempotent-replayed') === 'true')).toBe(true);
    expect(await Promise.all(replays.map((r) => r.text()))).toEqual(bodies);
    const list = (await (await again.sandbox.fetch('/v1/users?limit=100', { headers: { authorization: `Bearer ${again.sandbox.apiKey}` } })).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(40);
  });
});

describe('captures that overlap', () => {
  const event = (n: number): RestoredEvent =>
    new RestoredEvent({ id: `evt_${n}`, type: 'user.created', created_at: '2026-03-02T12:00:00.000Z', data: { object: { id: `u_${n}` } } } as never);
  const storage = { events: () => [] } as unknown as SandboxStorage;

  it("an event log's take is written on its own: the next take's events stay until theirs is", () => {
    const log = new StoredEventLog(storage, 't', 100, 0);
    log.add(event(1));
    log.add(event(2));
    const first = log.take();
    log.add(event(3));
    const second = log.take();
    expect(first.rows.map((r) => r.seq)).toEqual([1, 2]);
    expect(second.rows.map((r) => r.seq)).toEqual([3]);
    first.written();
    // Event 3 is still held (its write is under way) and not taken again.
    expect(log.recent(10).map((e) => e.id)).toEqual(['evt_3']);
    expect(log.take().rows).toEqual([]);
    log.add(event(4));
    expect(log.take().rows.map((r) => r.seq)).toEqual([4]);
    second.written();
    expect(log.recent(10).map((e) => e.id)).toEqual(['evt_4']);
  });
});
