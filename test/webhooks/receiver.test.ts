// The receiver kit's semantics, each on both stores: a bad signature answers 400 with its reason;
// a duplicate answers 2xx without calling onEvent; onEvent throwing answers 5xx and leaves the
// event unprocessed, so the retry runs it; two concurrent copies run onEvent once; an expired
// lease (a crashed handler) lets the retry take the event over. Then what only a SQL store can
// do: the side effect and the "done" mark commit together, and a stale claim cannot commit.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ClaimResult,
  type SqlClient,
  type WebhookAnswer,
  type WebhookEventStore,
  WebhookLeaseLostError,
  createMemoryEventStore,
  createSqlEventStore,
  createWebhookHandler,
} from '../../src/webhooks/receiver/index.js';
import { signPayload } from '../../src/webhooks/index.js';
import { OTHER_SECRET, SECRET } from './helpers.js';
import { delivery, eventBody, eventId, latch, signedHeaders } from './receiver-helpers.js';

let db: PGlite;
let tables = 0;

beforeAll(async () => {
  // One PGlite per suite: its first open runs initdb (seconds).
  db = await PGlite.create();
}, 120_000);

afterAll(async () => {
  await db?.close();
});

interface Store {
  store: WebhookEventStore<unknown>;
  clock: { now: number };
}

const STORES: Array<[string, () => Promise<Store>]> = [
  [
    'memory',
    async () => {
      const clock = { now: Date.now() };
      return { store: createMemoryEventStore({ now: () => clock.now }) as WebhookEventStore<unknown>, clock };
    },
  ],
  [
    'sql (PGlite)',
    async () => {
      const clock = { now: Date.now() };
      const store = createSqlEventStore({ db, table: `events_${++tables}`, now: () => clock.now });
      await store.migrate();
      return { store: store as WebhookEventStore<unknown>, clock };
    },
  ],
];

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

describe.each(STORES)('createWebhookHandler on the %s store', (_name, make) => {
  it('answers a bad signature 400 with the reason, and never calls onEvent', async () => {
    const { store } = await make();
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secret: SECRET, store, onEvent });
    const id = eventId();
    const body = eventBody(id);
    const forged = await signPayload(body, OTHER_SECRET);
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ 'x-service-signature': forged }, body, 'no_matching_signature'],
      [{}, body, 'missing_header'],
      [{ 'x-service-signature': await signPayload(body, SECRET) }, body.replace('completed', 'complete!'), 'no_matching_signature'],
      [{ 'x-service-signature': await signPayload(body, SECRET, { timestamp: Math.floor(Date.now() / 1000) - 301 }) }, body, 'timestamp_too_old'],
    ];
    for (const [headers, text, reason] of cases) {
      const response = await handler(new Request('https://p.example/wh', { method: 'POST', body: text, headers }));
      expect(response.status).toBe(400);
      expect(await json(response)).toMatchObject({ error: 'invalid_webhook', reason });
    }
    expect(onEvent).not.toHaveBeenCalled();
    // Nothing was claimed: the genuine delivery is processed.
    const good = await handler(new Request('https://p.example/wh', { method: 'POST', body, headers: await signedHeaders(body, id) }));
    expect(good.status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('answers a duplicate 200 without calling onEvent again', async () => {
    const { store } = await make();
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secret: SECRET, store, onEvent });
    const id = eventId();
    const first = await handler(await delivery(id));
    expect(first.status).toBe(200);
    expect(await json(first)).toEqual({ received: true });
    // The same event again: a redelivery (freshly signed) and a copy of the same request.
    for (let i = 0; i < 2; i++) {
      const again = await handler(await delivery(id));
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual({ received: true, duplicate: true });
    }
    expect(onEvent).toHaveBeenCalledTimes(1);
    expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ id, type: 'conversion.completed' });
  });

  it('answers 500 when onEvent throws and leaves the event unprocessed: the retry runs it', async () => {
    const { store } = await make();
    const errors: unknown[] = [];
    let calls = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      store,
      onEvent: (_event, { attempt }) => {
        calls += 1;
        if (attempt === 1) throw new Error('database unavailable');
      },
      onError: (error) => errors.push(error),
    });
    const id = eventId();
    const failed = await handler(await delivery(id));
    expect(failed.status).toBe(500);
    expect(await json(failed)).toEqual({ error: 'handler_failed' }); // the error's text stays in the receiver
    expect((errors[0] as Error).message).toBe('database unavailable');
    const retried = await handler(await delivery(id));
    expect(retried.status).toBe(200);
    expect(await json(retried)).toEqual({ received: true });
    expect(calls).toBe(2);
    expect((await handler(await delivery(id))).status).toBe(200);
    expect(calls).toBe(2);
  });

  it('runs onEvent once for two concurrent copies: the other is answered 503 in_progress, or waits and is a duplicate', async () => {
    const { store } = await make();
    const gate = latch();
    const started = latch();
    let calls = 0;
    const handler = createWebhookHandler({
      secret: SECRET,
      store,
      onEvent: async () => {
        calls += 1;
        started.open();
        await gate.promise;
      },
    });
    const id = eventId();
    const first = handler(await delivery(id));
    await started.promise;
    // The memory store answers the copy at once; a SQL database makes it wait for the first
    // transaction's commit (PGlite has one connection; Postgres locks the row), then finds it processed.
    const second = handler(await delivery(id));
    const early = await Promise.race([second, new Promise<null>((resolve) => setTimeout(() => resolve(null), 50))]);
    gate.open();
    const answers = await Promise.all([first, second].map(async (r) => [(await r).status, await json((await r).clone())]));
    expect(answers[0]).toEqual([200, { received: true }]);
    expect([[503, { error: 'in_progress' }], [200, { received: true, duplicate: true }]]).toContainEqual(answers[1]);
    if (early !== null) expect(answers[1]?.[0]).toBe(503);
    const third = await handler(await delivery(id));
    expect(await json(third)).toEqual({ received: true, duplicate: true });
    expect(calls).toBe(1);
  });

  it('lets a retry take over an event whose handler crashed, once its lease expires', async () => {
    const { store, clock } = await make();
    const id = eventId();
    // A handler that claimed the event and died before finishing (a crash, kill -9).
    const crashed = await store.claim(id, { leaseMs: 60_000 });
    expect(crashed.status).toBe('claimed');
    const seen: number[] = [];
    const handler = createWebhookHandler({ secret: SECRET, store, leaseMs: 60_000, onEvent: (_e, { attempt }) => void seen.push(attempt) });
    const early = await handler(await delivery(id));
    expect(early.status).toBe(503);
    expect(seen).toEqual([]);
    clock.now += 60_001;
    const late = await handler(await delivery(id));
    expect(late.status).toBe(200);
    expect(seen).toEqual([2]);
    // The crashed handler's claim is no longer the event's: it cannot complete it.
    await expect(store.complete(crashed as Extract<ClaimResult, { status: 'claimed' }>, () => undefined)).rejects.toBeInstanceOf(WebhookLeaseLostError);
  });

  it('reports every answer to onAnswer, with the outcome, event and attempt', async () => {
    const { store } = await make();
    const answers: WebhookAnswer[] = [];
    const handler = createWebhookHandler({ secret: SECRET, store, onEvent: () => undefined, onAnswer: (a) => answers.push(a) });
    const id = eventId();
    await handler(await delivery(id));
    await handler(await delivery(id));
    await handler(new Request('https://p.example/wh', { method: 'GET' }));
    expect(answers.map((a) => [a.outcome, a.status, a.eventId, a.attempt])).toEqual([
      ['processed', 200, id, 1],
      ['duplicate', 200, id, undefined],
      ['method_not_allowed', 405, undefined, undefined],
    ]);
  });
});

describe('createWebhookHandler: configuration and input', () => {
  it('refuses to start without a secret, an onEvent, or a client for confirm', () => {
    expect(() => createWebhookHandler({ secret: '', onEvent: () => undefined })).toThrow(/endpoint secret/);
    expect(() => createWebhookHandler({ secret: SECRET } as never)).toThrow(/onEvent/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, confirm: true })).toThrow(/client/);
    expect(() => createWebhookHandler({ secret: SECRET, onEvent: () => undefined, leaseMs: 0 })).toThrow(/leaseMs/);
  });

  it('accepts any of several secrets (a rotation)', async () => {
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secrets: [OTHER_SECRET, SECRET], onEvent });
    expect((await handler(await delivery())).status).toBe(200);
    expect(onEvent).toHaveBeenCalledTimes(1);
  });

  it('answers a parsed body 500 (misconfigured: the platform retries once the route is fixed), a GET 405, a huge body 413', async () => {
    const errors: unknown[] = [];
    const onEvent = vi.fn();
    const handler = createWebhookHandler({ secret: SECRET, onEvent, maxBodyBytes: 2048, onError: (e) => errors.push(e) });
    const id = eventId();
    const parsed = await handler.handle({ body: JSON.parse(eventBody(id)), headers: await signedHeaders(eventBody(id), id) });
    expect(parsed).toMatchObject({ status: 500, outcome: 'misconfigured', reason: 'parsed_body' });
    expect(errors).toHaveLength(1);
    expect((await handler(new Request('https://p.example/wh'))).status).toBe(405);
    const huge = eventBody(id, 'conversion.completed', { pad: 'x'.repeat(4096) });
    const tooLarge = await handler(new Request('https://p.example/wh', { method: 'POST', body: huge, headers: await signedHeaders(huge, id) }));
    expect(tooLarge.status).toBe(413);
    expect(onEvent).not.toHaveBeenCalled();
  });
});

describe('confirm: true (fetch-after-notify)', () => {
  const fresh = { id: 'c0000000-0000-4000-8000-000000000001', status: 'completed', received_amount: '10.00' };

  function client(overrides: Partial<Record<'conversion' | 'transaction' | 'user', () => Promise<unknown>>> = {}) {
    const calls: string[] = [];
    const read = (kind: 'conversion' | 'transaction' | 'user') => (id: string) => {
      calls.push(`${kind}:${id}`);
      return (overrides[kind] ?? (() => Promise.resolve({ ...fresh, id })))() as Promise<never>;
    };
    return { calls, client: { conversions: { retrieve: read('conversion') }, transactions: { retrieve: read('transaction') }, users: { retrieve: read('user') } } };
  }

  it('reads the resource back before onEvent, by the kind of the event', async () => {
    const { calls, client: c } = client();
    const resources: unknown[] = [];
    const handler = createWebhookHandler({ secret: SECRET, confirm: true, client: c, onEvent: (_e, { resource }) => void resources.push(resource) });
    await handler(await delivery(eventId(), 'conversion.standby', { id: 'conv-1' }));
    await handler(await delivery(eventId(), 'transaction.sending_pix', { id: 'conv-2' }));
    await handler(await delivery(eventId(), 'transaction.completed', { id: 'tx-1' }));
    await handler(await delivery(eventId(), 'user.kyc_approved', { id: 'user-1' }));
    await handler(await delivery(eventId(), 'loyalty.points_added', { id: 'x-1' }));
    expect(calls).toEqual(['conversion:conv-1', 'conversion:conv-2', 'transaction:tx-1', 'user:user-1']);
    expect(resources).toEqual([{ ...fresh, id: 'conv-1' }, { ...fresh, id: 'conv-2' }, { ...fresh, id: 'tx-1' }, { ...fresh, id: 'user-1' }, undefined]);
  });

  it('gives null for a resource the platform no longer has, and answers 503 (released) when the read fails', async () => {
    let fail = true;
    const { client: c } = client({
      user: () => Promise.reject(Object.assign(new Error('not found'), { status: 404 })),
      conversion: () => (fail ? Promise.reject(new TypeError('fetch failed')) : Promise.resolve(fresh)),
    });
    const resources: unknown[] = [];
    const handler = createWebhookHandler({ secret: SECRET, confirm: true, client: c, onEvent: (_e, { resource }) => void resources.push(resource) });
    expect((await handler(await delivery(eventId(), 'user.kyc_approved', { id: 'gone' }))).status).toBe(200);
    expect(resources).toEqual([null]);
    const id = eventId();
    const first = await handler(await delivery(id));
    expect(first.status).toBe(503);
    expect(await json(first)).toEqual({ error: 'confirm_failed' });
    fail = false;
    expect((await handler(await delivery(id))).status).toBe(200);
    expect(resources).toEqual([null, fresh]);
  });
});

describe('the SQL store in the partner transaction', () => {
  async function setup(now = { now: Date.now() }) {
    const table = `events_${++tables}`;
    const store = createSqlEventStore({ db, table, now: () => now.now });
    await store.migrate();
    await db.query(`CREATE TABLE ${table}_ledger (event_id text, amount text)`);
    const ledger = async (): Promise<string[]> => (await db.query<{ event_id: string }>(`SELECT event_id FROM ${table}_ledger ORDER BY event_id`)).rows.map((r) => r.event_id);
    const credit = (tx: SqlClient, id: string) => tx.query(`INSERT INTO ${table}_ledger (event_id, amount) VALUES ($1, '10.00')`, [id]);
    return { store, table, ledger, credit };
  }

  it('commits the side effect and the mark together: a failing handler leaves neither', async () => {
    const { store, table, ledger, credit } = await setup();
    let failNext = true;
    const handler = createWebhookHandler({
      secret: SECRET,
      store,
      onEvent: async (event, { tx }) => {
        await credit(tx, event.id);
        if (failNext) {
          failNext = false;
          throw new Error('crash after the write');
        }
      },
    });
    const id = eventId();
    expect((await handler(await delivery(id))).status).toBe(500);
    expect(await ledger()).toEqual([]);
    const row = (await db.query<{ state: string; last_error: string }>(`SELECT state, last_error FROM ${table} WHERE event_id = $1`, [id])).rows[0];
    expect(row).toEqual({ state: 'processing', last_error: 'Error: crash after the write' });
    expect((await handler(await delivery(id))).status).toBe(200);
    expect((await handler(await delivery(id))).status).toBe(200);
    expect(await ledger()).toEqual([id]);
    const done = (await db.query<{ state: string; attempts: number }>(`SELECT state, attempts FROM ${table} WHERE event_id = $1`, [id])).rows[0];
    expect(done).toEqual({ state: 'processed', attempts: 2 });
  });

  it('a claim that was taken over cannot commit: the slow handler rolls back, the new one commits once', async () => {
    const clock = { now: Date.now() };
    const { store, ledger, credit } = await setup(clock);
    const id = eventId();
    const slow = await store.claim(id, { leaseMs: 1000 });
    clock.now += 1001;
    const takeover = await store.claim(id, { leaseMs: 1000 });
    expect(takeover).toMatchObject({ status: 'claimed', attempt: 2 });
    await expect(store.complete(slow as never, (tx: SqlClient) => credit(tx, id))).rejects.toBeInstanceOf(WebhookLeaseLostError);
    await store.complete(takeover as never, (tx: SqlClient) => credit(tx, id));
    expect(await ledger()).toEqual([id]);
    expect(await store.claim(id, { leaseMs: 1000 })).toEqual({ status: 'processed', eventId: id });
  });

  it('prunes processed ids older than a date', async () => {
    const clock = { now: 1_000_000 };
    const { store } = await setup(clock);
    const old = eventId();
    await store.complete((await store.claim(old, { leaseMs: 1000 })) as never, () => undefined);
    clock.now = 2_000_000;
    const recent = eventId();
    await store.complete((await store.claim(recent, { leaseMs: 1000 })) as never, () => undefined);
    expect(await store.prune(1_500_000)).toBe(1);
    expect((await store.claim(old, { leaseMs: 1000 })).status).toBe('claimed');
    expect((await store.claim(recent, { leaseMs: 1000 })).status).toBe('processed');
  });

  it('opens transactions on a pg-style Pool (connect, BEGIN, COMMIT or ROLLBACK, release)', async () => {
    const log: string[] = [];
    // A pg Pool's shape over the suite's PGlite (one connection, so used one request at a time).
    const pool = {
      query: (text: string, params?: unknown[]) => db.query(text, params),
      connect: async () => ({
        query: (text: string, params?: unknown[]) => {
          if (/^(BEGIN|COMMIT|ROLLBACK)$/.test(text)) log.push(text);
          return db.query(text, params);
        },
        release: (error?: Error | boolean) => void log.push(error ? 'release(error)' : 'release'),
      }),
    };
    const table = `events_${++tables}`;
    const store = createSqlEventStore({ db: pool, table });
    await store.migrate();
    const fails = createWebhookHandler({ secret: SECRET, store, onEvent: () => Promise.reject(new Error('no')) });
    const works = createWebhookHandler({ secret: SECRET, store, onEvent: () => undefined });
    const id = eventId();
    expect((await fails(await delivery(id))).status).toBe(500);
    expect((await works(await delivery(id))).status).toBe(200);
    expect(log).toEqual(['BEGIN', 'ROLLBACK', 'release', 'BEGIN', 'COMMIT', 'release']);
  });

  it('refuses a database it cannot open a transaction on, and a table name that is not an identifier', () => {
    expect(() => createSqlEventStore({ db: { query: () => Promise.resolve({ rows: [] }) } })).toThrow(/transaction/);
    expect(() => createSqlEventStore({ db, table: 'events; DROP TABLE users' })).toThrow(/Invalid table name/);
  });
});
