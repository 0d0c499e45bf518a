/**
 * Events and stored answers are kept as record versions (src/sandbox/core/versions.ts): the live
 * record plus its changing fields, packed. These tests hold the field lists to the records, and
 * the rebuilt events and replayed answers to the ones given at the time, on the paths the
 * property test (test/property) does not draw: user updates and deletion, standalone
 * transactions, the KYC view, a middleware that rewrites an answer, snapshots.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CONVERSION, QUOTE, TRANSACTION, USER, type VersionKind, keptValues, packedValues, samePrimitives, valuesOf } from '../../../src/sandbox/core/versions.js';
import type { Stamped } from '../../../src/sandbox/core/versions.js';
import { internalsOf } from '../../../src/sandbox/sandbox.js';
import { type Sandbox, createSandbox } from '../../../src/sandbox/index.js';
import { cpf, onrampBody } from '../../support/fixtures.js';
import { snapshotRecords } from '../../support/records.js';

const T0 = Date.parse('2026-03-02T12:00:00.000Z');

/** A sandbox whose raw calls keep their answers, and whose events are kept as emitted. */
function world(): {
  sandbox: Sandbox;
  call(method: string, path: string, body?: unknown, key?: string): Promise<{ status: number; text: string; json: Record<string, unknown> }>;
  emitted: string[];
  sent: Array<{ method: string; path: string; body: unknown; key: string; status: number; text: string }>;
} {
  const sandbox = createSandbox({ seed: 'versions', now: T0 });
  const emitted: string[] = [];
  sandbox.on('event', (event, tenantId) => {
    if (tenantId === sandbox.tenantId) emitted.push(JSON.stringify(event));
  });
  const sent: Array<{ method: string; path: string; body: unknown; key: string; status: number; text: string }> = [];
  let n = 0;
  const call = async (method: string, path: string, body?: unknown, key = `k${++n}`): Promise<{ status: number; text: string; json: Record<string, unknown> }> => {
    const headers: Record<string, string> = { authorization: `Bearer ${sandbox.apiKey}` };
    if (method !== 'GET') headers['idempotency-key'] = key;
    const init: RequestInit = { method, headers };
    if (body !== undefined) init.body = JSON.stringify(body);
    const response = await sandbox.fetch(path, init);
    const text = await response.text();
    if (method !== 'GET') sent.push({ method, path, body, key, status: response.status, text });
    return { status: response.status, text, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
  };
  return { sandbox, call, emitted, sent };
}

async function replayAll(w: ReturnType<typeof world>): Promise<void> {
  for (const s of [...w.sent]) {
    const again = await w.call(s.method, s.path, s.body, s.key);
    expect({ status: again.status, text: again.text }, `replay of ${s.method} ${s.path}`).toEqual({ status: s.status, text: s.text });
  }
}

describe('record versions', () => {
  it('every field of every record is packed, fixed or internal, once', async () => {
    const w = world();
    const user = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1), email: 'ana@example.com', metadata: { a: '1' } });
    await w.call('POST', `/v1/test_helpers/users/${user.json['id'] as string}/kyc`, { status: 'approved' });
    const quote = await w.call('POST', '/v1/quotes', onrampBody(user.json['id'] as string, '100.00'));
    await w.call('POST', `/v1/quotes/${quote.json['id'] as string}/accept`, {});
    const { platform } = internalsOf(w.sandbox) ?? expect.fail('no internals');
    const tenant = platform.tenants.get(w.sandbox.tenantId) ?? expect.fail('no tenant');
    const kinds: Array<[VersionKind<never>, Stamped | undefined]> = [
      [USER as unknown as VersionKind<never>, tenant.users.all()[0]],
      [QUOTE as unknown as VersionKind<never>, tenant.quotes.all()[0]],
      [CONVERSION as unknown as VersionKind<never>, tenant.conversions.all()[0]],
    ];
    const tx = await w.call('POST', '/v1/quotes', onrampBody(user.json['id'] as string, '10.00'));
    await w.call('POST', '/v1/transactions', { quote_id: tx.json['id'] });
    kinds.push([TRANSACTION as unknown as VersionKind<never>, tenant.transactions.all()[0]]);
    for (const [kind, record] of kinds) {
      expect(record, kind.name).toBeDefined();
      const listed = [...kind.packed, ...kind.fixed, ...kind.internal];
      expect(new Set(listed).size, `${kind.name}: a field listed twice`).toBe(listed.length);
      expect([...listed].sort(), `${kind.name}: the lists and the record's fields`).toEqual(Object.keys(record as object).sort());
      for (const instant of kind.instants) expect(kind.packed, `${kind.name}.${instant}`).toContain(instant);
    }
  });

  it('a version is taken again only when a packed field changed, an object changed in place included', async () => {
    const w = world();
    const user = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1), metadata: { a: '1' } });
    await w.call('POST', `/v1/test_helpers/users/${user.json['id'] as string}/kyc`, { status: 'approved' });
    const quote = await w.call('POST', '/v1/quotes', onrampBody(user.json['id'] as string, '100.00'));
    const { platform } = internalsOf(w.sandbox) ?? expect.fail('no internals');
    const tenant = platform.tenants.get(w.sandbox.tenantId) ?? expect.fail('no tenant');
    const [q, u] = [tenant.quotes.all()[0], tenant.users.all()[0]];
    if (q === undefined || u === undefined) return expect.fail('no records');
    const first = platform.version(QUOTE, q);
    expect(platform.version(QUOTE, q)).toBe(first);
    expect(platform.version(QUOTE, { ...q })).not.toBe(first);
    const again = platform.version(QUOTE, q);
    q.status = 'expired';
    const changed = platform.version(QUOTE, q);
    expect(changed).not.toBe(again);
    expect(changed.object()['status']).toBe('expired');
    expect(again.object()['status']).toBe(quote.json['status']);
    // An object among the packed fields is compared by its JSON: a change in place is seen, none is not.
    // Without a KYC submission (a packed array), every other packed field of a user is a string, a number or null.
    u.submission = null;
    const before = platform.version(USER, u);
    expect(platform.version(USER, u)).toBe(before);
    u.metadata['a'] = '2';
    const after = platform.version(USER, u);
    expect(after).not.toBe(before);
    expect(before.object()['metadata']).toEqual({ a: '1' });
    expect(after.object()['metadata']).toEqual({ a: '2' });
    // Compared key by key against a copy (no JSON written): a key added, removed or moved, a value
    // changed in place, each takes a new version; the same again does not.
    expect(platform.version(USER, u)).toBe(after);
    const steps: [string, () => void, unknown][] = [
      ['a key added', () => void (u.metadata['b'] = '3'), { a: '2', b: '3' }],
      ['the same keys, another order', () => void (u.metadata = { b: '3', a: '2' }), { b: '3', a: '2' }],
      ['a key removed', () => void delete u.metadata['a'], { b: '3' }],
      ['a value emptied', () => void (u.metadata['b'] = ''), { b: '' }],
    ];
    let last = after;
    for (const [what, change, metadata] of steps) {
      change();
      const next = platform.version(USER, u);
      expect(next, what).not.toBe(last);
      expect(JSON.stringify(next.object()['metadata']), what).toBe(JSON.stringify(metadata));
      expect(platform.version(USER, u), what).toBe(next);
      last = next;
    }
    // The same metadata in a new object: the same version.
    u.metadata = { b: '' };
    expect(platform.version(USER, u)).toBe(last);
    // A KYC submission (a packed array) changed in place.
    u.submission = { id: 'kyc_1', status: 'in_review', createdAt: u.createdAt, submittedAt: null, resultAt: null, rejectionReason: null };
    const submitted = platform.version(USER, u);
    expect(submitted).not.toBe(last);
    expect(platform.version(USER, u)).toBe(submitted);
    u.submission.rejectionReason = 'blurred';
    const rejected = platform.version(USER, u);
    expect(rejected).not.toBe(submitted);
    expect(rejected.get()).toMatchObject({ submission: { rejectionReason: 'blurred' } });
    expect(submitted.get()).toMatchObject({ submission: { rejectionReason: null } });
  });

  it('events rebuild as emitted, and answers replay byte for byte, after updates, deletion, transactions and KYC', async () => {
    const w = world();
    const user = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1), metadata: { plan: 'gold', '2': 'two' } });
    const id = user.json['id'] as string;
    await w.call('POST', `/v1/test_helpers/users/${id}/kyc`, { status: 'in_review' });
    await w.call('POST', `/v1/test_helpers/users/${id}/kyc`, { status: 'approved' });
    // Every field a PATCH can change, changed after the answers above were given.
    await w.call('PATCH', `/v1/users/${id}`, { name: 'Ana Maria', email: 'ana@example.com', date_of_birth: '1990-01-02', external_id: 'u1-b', metadata: { plan: 'silver' } });
    await w.sandbox.clock.advance({ minutes: 1 });
    await w.call('PATCH', `/v1/users/${id}`, { name: 'Ana M.' });
    const quote = await w.call('POST', '/v1/quotes', onrampBody(id, '100.00'));
    const tx = await w.call('POST', '/v1/transactions', { quote_id: quote.json['id'] });
    expect(tx.status).toBe(201);
    await w.sandbox.clock.advance({ seconds: 5 });
    await w.call('POST', `/v1/test_helpers/transactions/${tx.json['id'] as string}/pay`, { settle: true });
    const second = await w.call('POST', '/v1/quotes', onrampBody(id, '50.00'));
    const unpaid = await w.call('POST', '/v1/transactions', { quote_id: second.json['id'] });
    await w.sandbox.clock.advance({ minutes: 16 }); // the payment window passes: expired
    const other = await w.call('POST', '/v1/users', { external_id: 'u2', name: 'Bia', document_type: 'cpf', document_number: cpf(2) });
    await w.call('POST', `/v1/test_helpers/users/${other.json['id'] as string}/kyc`, { status: 'rejected' });
    expect((await w.call('DELETE', `/v1/users/${other.json['id'] as string}`)).status).toBe(204);
    expect((await w.call('GET', `/v1/transactions/${unpaid.json['id'] as string}`)).json['status']).toBe('expired');

    expect(w.sandbox.events().map((e) => JSON.stringify(e))).toEqual(w.emitted);
    expect(w.sandbox.events().map((e) => e.type)).toEqual(['user.kyc_pending', 'user.kyc_approved', 'transaction.completed', 'user.kyc_pending', 'user.kyc_rejected']);
    await replayAll(w);
  });

  it('a replay answers the first answer, whatever the record became since', async () => {
    const w = world();
    const user = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    await w.call('POST', `/v1/test_helpers/users/${user.json['id'] as string}/kyc`, { status: 'approved' });
    const quote = await w.call('POST', '/v1/quotes', onrampBody(user.json['id'] as string, '100.00'));
    const accepted = await w.call('POST', `/v1/quotes/${quote.json['id'] as string}/accept`, {}, 'accept-1');
    await w.sandbox.clock.advance({ seconds: 30 });
    await w.call('POST', `/v1/test_helpers/conversions/${accepted.json['id'] as string}/simulate-onramp-pix-paid`, { settle: true });
    const again = await w.call('POST', `/v1/quotes/${quote.json['id'] as string}/accept`, {}, 'accept-1');
    expect(again.text).toBe(accepted.text);
    expect(again.json['status']).toBe('awaiting_deposit');
    expect((await w.call('GET', `/v1/conversions/${accepted.json['id'] as string}`)).json['status']).toBe('completed');
  });

  it('a read answers the record as it is now, and an event read late holds the record as it was', async () => {
    const w = world();
    const kept: Array<{ type: string; data: { object: Record<string, unknown> } }> = [];
    w.sandbox.on('event', (event) => kept.push(event as never));
    const ana = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    const bia = await w.call('POST', '/v1/users', { external_id: 'u2', name: 'Bia', document_type: 'cpf', document_number: cpf(2) });
    const anaId = ana.json['id'] as string;
    const bId = bia.json['id'] as string;
    // The JSON of the last version of a kind is kept: reads of two users in turn, and after a change.
    expect((await w.call('GET', `/v1/users/${anaId}`)).text).toBe(ana.text);
    expect((await w.call('GET', `/v1/users/${bId}`)).text).toBe(bia.text);
    const renamed = await w.call('PATCH', `/v1/users/${anaId}`, { name: 'Ana Maria' });
    expect(renamed.json['name']).toBe('Ana Maria');
    expect((await w.call('GET', `/v1/users/${anaId}`)).text).toBe(renamed.text);
    expect((await w.call('GET', `/v1/users/${bId}`)).text).toBe(bia.text);
    await w.call('POST', `/v1/test_helpers/users/${anaId}/kyc`, { status: 'approved' });
    const approved = await w.call('GET', `/v1/users/${anaId}`);
    expect(approved.json['kyc_status']).toBe('approved');
    expect(approved.text).not.toBe(renamed.text);
    // Events kept as objects and read only now: each as its record was when it was emitted.
    const ofAna = kept.filter((e) => e.data.object['id'] === anaId);
    expect(ofAna.map((e) => [e.type, e.data.object['kyc_status']])).toEqual([
      ['user.kyc_pending', 'pending'],
      ['user.kyc_approved', 'approved'],
    ]);
    expect(kept.map((e) => JSON.stringify(e))).toEqual(w.emitted);
  });

  it('an emitted envelope is a plain object: its keys in order, data read late or replaced', async () => {
    const w = world();
    const kept: Array<Record<string, unknown>> = [];
    w.sandbox.on('event', (event) => kept.push(event as never));
    await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    await w.call('POST', '/v1/users', { external_id: 'u2', name: 'Bia', document_type: 'cpf', document_number: cpf(2) });
    const [first, second] = kept as [Record<string, unknown>, Record<string, unknown>];
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    expect(Object.keys(first)).toEqual(['id', 'type', 'created_at', 'data']);
    expect(Object.getOwnPropertySymbols(first).filter((k) => Object.getOwnPropertyDescriptor(first, k)?.enumerable)).toEqual([]);
    // Read through a proxy (a reactive store's), data is the same.
    expect(JSON.stringify(new Proxy(first, {}))).toBe(w.emitted[0]);
    expect(structuredClone(first)).toEqual(JSON.parse(w.emitted[0] as string));
    const copy = { ...first };
    expect(JSON.stringify(copy)).toBe(w.emitted[0]);
    expect(copy).toEqual(JSON.parse(w.emitted[0] as string));
    // Each envelope keeps its own data; an assignment replaces it for that envelope alone.
    second['data'] = { object: { id: 'replaced' } };
    expect(second['data']).toEqual({ object: { id: 'replaced' } });
    expect(JSON.stringify(first)).toBe(w.emitted[0]);
    expect((first['data'] as { object: { name: string } }).object.name).toBe('Ana');
    expect(first['data']).toBe(first['data']);
  });

  it('an answer a middleware rewrote is kept as rewritten', async () => {
    const w = world();
    w.sandbox.use('rewrite', async (_call, next) => {
      const answer = await next();
      return answer.status === 201 ? { ...answer, body: (answer.body ?? '').replace('"name":"Ana"', '"name":"ANA"') } : answer;
    });
    const first = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }, 'user-1');
    expect(first.json['name']).toBe('ANA');
    const again = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }, 'user-1');
    expect(again.text).toBe(first.text);
  });

  it('a snapshot holds the records whole: restored, events and replays are the same', async () => {
    const w = world();
    const user = await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) });
    await w.call('POST', `/v1/test_helpers/users/${user.json['id'] as string}/kyc`, { status: 'approved' });
    const quote = await w.call('POST', '/v1/quotes', onrampBody(user.json['id'] as string, '100.00'));
    await w.call('POST', `/v1/quotes/${quote.json['id'] as string}/accept`, {});
    const snapshot = snapshotRecords(w.sandbox.snapshot());
    const stored = snapshot.tenants.find((t) => t.id === w.sandbox.tenantId)?.idempotency ?? [];
    expect(stored.map((r) => r.body)).toEqual(w.sent.map((s) => s.text));
    for (const r of stored) {
      expect(r.fingerprint).toMatch(/^[0-9a-f]{14}$/);
      expect(r.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    }
    const events = w.sandbox.events().map((e) => JSON.stringify(e));
    const restored = createSandbox({ seed: 'other', now: T0 });
    restored.restore(snapshot);
    expect(restored.events().map((e) => JSON.stringify(e))).toEqual(events);
    for (const s of w.sent) {
      const response = await restored.fetch(s.path, { method: s.method, headers: { authorization: `Bearer ${w.sandbox.apiKey}`, 'idempotency-key': s.key }, body: JSON.stringify(s.body) });
      expect({ status: response.status, text: await response.text() }).toEqual({ status: s.status, text: s.text });
    }
  });

  it('reads idempotency records of snapshots written before (28 hex digits of fingerprint)', async () => {
    const w = world();
    await w.call('POST', '/v1/users', { external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }, 'old-key');
    const snapshot = snapshotRecords(w.sandbox.snapshot());
    const tenant = snapshot.tenants.find((t) => t.id === w.sandbox.tenantId) ?? expect.fail('no tenant');
    // The former form: two 53-bit hashes, the first of which the sandbox compares now.
    for (const r of tenant.idempotency) r.fingerprint = `${r.fingerprint}0123456789abcd`;
    const restored = createSandbox({ seed: 'other', now: T0 });
    restored.restore(snapshot);
    const same = await restored.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${w.sandbox.apiKey}`, 'idempotency-key': 'old-key' }, body: JSON.stringify({ external_id: 'u1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) }) });
    expect(same.status).toBe(201);
    expect(same.headers.get('idempotent-replayed')).toBe('true');
    const other = await restored.fetch('/v1/users', { method: 'POST', headers: { authorization: `Bearer ${w.sandbox.apiKey}`, 'idempotency-key': 'old-key' }, body: JSON.stringify({ external_id: 'u9', name: 'Bia', document_type: 'cpf', document_number: cpf(9) }) });
    expect(other.status).toBe(409);
  });
});

describe("each kind's own values", () => {
  // Any record of the kind's fields: null, numbers (instants among them), text, booleans, a flat object.
  const value = fc.oneof(fc.constant(null), fc.integer(), fc.double(), fc.string(), fc.boolean(), fc.dictionary(fc.string(), fc.string()));
  const submission = fc.option(
    fc.record({ id: fc.string(), status: fc.string(), createdAt: fc.integer(), submittedAt: fc.option(fc.integer()), resultAt: fc.option(fc.integer()), rejectionReason: fc.option(fc.string()) }),
  );
  const recordOf = (kind: VersionKind): fc.Arbitrary<Stamped> => {
    const fields: string[] = [...kind.packed, ...kind.fixed, ...kind.internal].filter((f: string) => f !== 'createdAt' && f !== 'submission');
    // An instant is a number or null in any record (a difference of anything else is NaN or throws, both ways alike).
    const model: Record<string, fc.Arbitrary<unknown>> = Object.fromEntries(fields.map((f) => [f, kind.instants.has(f) ? fc.option(fc.integer()) : value]));
    const hasSubmission = (kind.packed as readonly string[]).includes('submission');
    return fc.record({ ...model, createdAt: fc.integer(), ...(hasSubmission ? { submission } : {}) }) as unknown as fc.Arbitrary<Stamped>;
  };

  const KINDS = [USER, QUOTE, CONVERSION, TRANSACTION] as unknown as VersionKind[];
  it.each(KINDS.map((k) => [k.name, k] as const))('%s: what the loop over its packed fields reads', (_name, kind) => {
    expect(kind.values).toBeDefined();
    fc.assert(
      fc.property(recordOf(kind), (record) => {
        expect(packedValues(kind, record)).toEqual(valuesOf(kind, record));
        expect(JSON.stringify(packedValues(kind, record))).toBe(JSON.stringify(valuesOf(kind, record)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('samePrimitives (a version taken again without its JSON)', () => {
  it('takes equal primitives, arrays of equal primitives item by item and flat objects key by key; not an object changed since it was kept, or a nested array', () => {
    const frozen = Object.freeze({ a: '1' });
    const open = { a: '1' };
    expect(samePrimitives(['a', 1, null, true], ['a', 1, null, true])).toBe(true);
    expect(samePrimitives(['a', ['s', 'initiated', 0, null]], ['a', ['s', 'initiated', 0, null]])).toBe(true);
    expect(samePrimitives([['s', 'initiated', 0, null]], [['s', 'in_review', 0, null]])).toBe(false);
    expect(samePrimitives([['s', 1]], [['s', 1, 2]])).toBe(false);
    expect(samePrimitives([frozen], [frozen])).toBe(true);
    const kept = keptValues([open]);
    expect(samePrimitives([open], kept)).toBe(true);
    open.a = '2'; // changed in place after it was kept: the kept copy still tells
    expect(samePrimitives([open], kept)).toBe(false);
    expect(samePrimitives([{ a: '1' }], [{ a: '1', b: '2' }])).toBe(false);
    expect(samePrimitives([[['nested']]], [[['nested']]])).toBe(false);
    expect(samePrimitives(['a'], ['a', 'b'])).toBe(false);
  });
});
