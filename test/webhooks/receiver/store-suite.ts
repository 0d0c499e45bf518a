// The receiver kit's promise, one suite for every store (hono's `common.case` pattern): each
// backend (the memory store, PGlite, a pg Pool on the run's real PostgreSQL server) gives a fresh
// store, a clock, a ledger the handler writes to through the store's unit of work, and what it can
// do (roll writes back, run on many connections, kill a connection). The suite holds each to the
// same answers: a duplicate is acknowledged without running the handler; a handler that throws is
// rolled back and retried; many concurrent copies of many events run each event once; a crashed
// handler's lease is taken over; a takeover while the first holder is still inside its transaction
// refuses that holder's late commit; a handler past its time limit is abandoned and stalls nothing;
// a connection killed mid-transaction commits nothing and the retry processes the event.
import { describe, expect, it, vi } from 'vitest';
import {
  type EventClaim,
  type WebhookAnswer,
  type WebhookEventStore,
  WebhookLeaseLostError,
  createWebhookHandler,
} from '../../../src/webhooks/receiver/index.js';
import { signPayload } from '../../../src/webhooks/index.js';
import { OTHER_SECRET, SECRET } from '../helpers.js';
import { delivery, eventBody, eventId, latch, signedHeaders } from '../receiver-helpers.js';

/** One fresh store of a backend, with the handler's side effect and how to read it back. */
export interface StoreHarness {
  store: WebhookEventStore<unknown>;
  /** The store's clock (leases), in ms: move it to expire a lease. */
  clock: { now: number };
  /** The handler's write for `eventId`: one ledger entry, through the store's unit of work `tx`. */
  credit(tx: unknown, eventId: string): Promise<void>;
  /** The committed ledger entries, sorted. */
  ledger(): Promise<string[]>;
  /** The store's row of the event (SQL stores): `state`, `attempts`, `last_error`. */
  row?(eventId: string): Promise<Record<string, unknown> | undefined>;
}

/** A store backend the suite runs on. */
export interface StoreBackend {
  name: string;
  /** Writes through `tx` roll back with the unit of work (false: the memory store, which cannot undo them). */
  transactional: boolean;
  /** Statements run on this many connections at once (1: PGlite; the memory store has none, so it counts as many). */
  connections: number;
  /** Events times copies of the concurrent-duplicates case. */
  storm: { events: number; copies: number };
  make(): Promise<StoreHarness>;
  /** Ends, from another connection, the server connection that `tx` runs on (`pg_terminate_backend`). */
  terminate?(tx: unknown): Promise<void>;
  /** How many server connections the backend has opened so far (a pool's count). */
  opened?(): number;
}

async function json(response: Response): Promise<Record<string, unknown>> {
  return (await response.json()) as Record<string, unknown>;
}

const count = (values: readonly string[], value: string) => values.filter((v) => v === value).length;

export function storeSuite(backend: StoreBackend): void {
  const { transactional } = backend;

  describe(`the receiver kit on ${backend.name}`, () => {
    it('answers a bad signature 400 with the reason, and never calls onEvent', async () => {
      const { store } = await backend.make();
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
      const { store } = await backend.make();
      const onEvent = vi.fn();
      const handler = createWebhookHandler({ secret: SECRET, store, onEvent });
      const id = eventId();
      const first = await handler(await delivery(id));
      expect(first.status).toBe(200);
      expect(await json(first)).toEqual({ received: true });
      for (let i = 0; i < 2; i++) {
        const again = await handler(await delivery(id));
        expect(again.status).toBe(200);
        expect(await json(again)).toEqual({ received: true, duplicate: true });
      }
      expect(onEvent).toHaveBeenCalledTimes(1);
      expect(onEvent.mock.calls[0]?.[0]).toMatchObject({ id, type: 'conversion.completed' });
    });

    it('a handler that throws: 500, its writes rolled back, the claim released; the retry runs it again, once', async () => {
      const { store, credit, ledger, row } = await backend.make();
      const errors: unknown[] = [];
      let calls = 0;
      const handler = createWebhookHandler({
        secret: SECRET,
        store,
        onEvent: async (event, { tx, attempt }) => {
          calls += 1;
          await credit(tx, event.id);
          if (attempt === 1) throw new Error('crash after the write');
        },
        onError: (error) => errors.push(error),
      });
      const id = eventId();
      const failed = await handler(await delivery(id));
      expect(failed.status).toBe(500);
      expect(await json(failed)).toEqual({ error: 'handler_failed' }); // the error's text stays in the receiver
      expect((errors[0] as Error).message).toBe('crash after the write');
      // The memory store cannot undo a write: that is why a handler that writes takes the SQL store.
      expect(await ledger()).toEqual(transactional ? [] : [id]);
      if (row) expect(await row(id)).toMatchObject({ state: 'processing', last_error: 'Error: crash after the write' });
      const retried = await handler(await delivery(id));
      expect(retried.status).toBe(200);
      expect(await json(retried)).toEqual({ received: true });
      expect((await handler(await delivery(id))).status).toBe(200);
      expect(calls).toBe(2);
      expect(await ledger()).toEqual(transactional ? [id] : [id, id]);
      if (row) expect(await row(id)).toMatchObject({ state: 'processed', attempts: 2 });
    });

    it('concurrent copies of many events: each event runs once, every copy is answered 200 or 503, failed first attempts run again', async () => {
      const { store, credit, ledger } = await backend.make();
      const { events, copies } = backend.storm;
      const ids = Array.from({ length: events }, () => eventId());
      const failing = new Set(ids.filter((_, i) => i % 5 === 0));
      const runs = new Map<string, number>();
      const answers: WebhookAnswer[] = [];
      const handler = createWebhookHandler({
        secret: SECRET,
        store,
        onAnswer: (a) => answers.push(a),
        onEvent: async (event, { tx, attempt }) => {
          runs.set(event.id, (runs.get(event.id) ?? 0) + 1);
          await credit(tx, event.id);
          if (attempt === 1 && failing.has(event.id)) throw new Error('first attempt fails');
        },
      });
      // Every copy of every event at once: on a pool, claims and transactions race on many connections.
      const requests = await Promise.all(ids.flatMap((id) => Array.from({ length: copies }, () => delivery(id))));
      const statuses = (await Promise.all(requests.map((r) => handler(r)))).map((r) => r.status);
      expect(statuses).toHaveLength(events * copies);
      for (const status of statuses) expect([200, 500, 503]).toContain(status);
      // The platform's retries: each event once more, in turn, then once more as a duplicate.
      for (const id of ids) expect([200]).toContain((await handler(await delivery(id))).status);
      for (const id of ids) expect(await json(await handler(await delivery(id)))).toEqual({ received: true, duplicate: true });
      const committed = await ledger();
      // Exactly one committed write per event; a failing first attempt's write was rolled back.
      for (const id of ids) expect(count(committed, id)).toBe(transactional || !failing.has(id) ? 1 : 2);
      for (const id of ids) expect(runs.get(id)).toBe(failing.has(id) ? 2 : 1);
      for (const id of ids) expect(answers.filter((a) => a.eventId === id && a.outcome === 'processed')).toHaveLength(1);
      expect(answers.filter((a) => a.outcome === 'handler_failed')).toHaveLength(failing.size);
      if (backend.opened) expect(backend.opened()).toBeGreaterThan(1);
    });

    it('lets a retry take over an event whose handler crashed, once its lease expires; the crashed claim cannot complete', async () => {
      const { store, clock, credit, ledger } = await backend.make();
      const id = eventId();
      // A handler that claimed the event and died before finishing (a crash, kill -9).
      const crashed = await store.claim(id, { leaseMs: 60_000 });
      expect(crashed.status).toBe('claimed');
      const seen: number[] = [];
      const handler = createWebhookHandler({
        secret: SECRET,
        store,
        leaseMs: 60_000,
        onEvent: async (event, { tx, attempt }) => {
          seen.push(attempt);
          await credit(tx, event.id);
        },
      });
      const early = await handler(await delivery(id));
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('30');
      expect(seen).toEqual([]);
      clock.now += 60_001;
      const late = await handler(await delivery(id));
      expect(late.status).toBe(200);
      expect(seen).toEqual([2]);
      // The crashed handler's claim is no longer the event's: it commits nothing (the memory store refuses before the work).
      await expect(store.complete(crashed as EventClaim, (tx) => credit(tx, id))).rejects.toBeInstanceOf(WebhookLeaseLostError);
      expect(await ledger()).toEqual([id]);
    });

    // On one connection (PGlite) the takeover's claim waits for the open transaction: the time
    // limit case below is what frees it there.
    if (backend.connections > 1) {
      it('a takeover while the first holder is still inside its transaction: the second commits, the fence refuses the late commit', async () => {
        const { store, clock, credit, ledger } = await backend.make();
        const id = eventId();
        const first = (await store.claim(id, { leaseMs: 1000 })) as EventClaim;
        const inside = latch();
        const gate = latch();
        const firstDone = store.complete(first, async (tx) => {
          await credit(tx, id);
          inside.open();
          await gate.promise;
        });
        firstDone.catch(() => undefined);
        await inside.promise;
        // The first holder's transaction is open, with its write; its lease expires.
        clock.now += 1001;
        const second = await store.claim(id, { leaseMs: 1000 });
        expect(second).toMatchObject({ status: 'claimed', attempt: 2 });
        await store.complete(second as EventClaim, (tx) => credit(tx, id));
        gate.open();
        await expect(firstDone).rejects.toBeInstanceOf(WebhookLeaseLostError);
        expect(await ledger()).toEqual(transactional ? [id] : [id, id]);
        expect(await store.claim(id, { leaseMs: 1000 })).toEqual({ status: 'processed', eventId: id });
      });
    }

    it('the time limit: a hung onEvent is answered 503 and abandoned; an unrelated event and the next copy proceed meanwhile', async () => {
      const { store, credit, ledger } = await backend.make();
      const hung = eventId();
      const other = eventId();
      const gate = latch();
      const started = latch();
      let late: Promise<string> | undefined;
      const handler = createWebhookHandler({
        secret: SECRET,
        store,
        onEventTimeoutMs: 300,
        onEvent: async (event, { tx, attempt }) => {
          if (event.id === hung && attempt === 1) {
            started.open();
            // Hangs (a call that never answers), then writes through its transaction, too late.
            late = gate.promise.then(() => credit(tx, event.id)).then(
              () => 'wrote',
              () => 'refused',
            );
            await late;
            return;
          }
          await credit(tx, event.id);
        },
      });
      const first = handler(await delivery(hung));
      await started.promise;
      // Not stalled behind the hung handler (on one connection, it waits at most the time limit).
      const unrelated = await handler(await delivery(other));
      expect(unrelated.status).toBe(200);
      const timedOut = await first;
      expect(timedOut.status).toBe(503);
      expect(timedOut.headers.get('retry-after')).toBe('30');
      expect(await json(timedOut)).toEqual({ error: 'handler_timeout' });
      // The claim was released: the platform's retry runs the event now, not after the lease.
      const retried = await handler(await delivery(hung));
      expect(retried.status).toBe(200);
      expect(await json(retried)).toEqual({ received: true });
      gate.open();
      // The abandoned handler's late write goes nowhere where the store owns a transaction.
      expect(await late).toBe(transactional ? 'refused' : 'wrote');
      expect(await ledger()).toEqual(transactional ? [hung, other].sort() : [hung, hung, other].sort());
      expect(await json(await handler(await delivery(hung)))).toEqual({ received: true, duplicate: true });
    });

    const { terminate } = backend;
    if (terminate) {
      it('a connection terminated mid-transaction: 500, nothing committed, the retry processes the event once', async () => {
        const { store, credit, ledger } = await backend.make();
        const id = eventId();
        const handler = createWebhookHandler({
          secret: SECRET,
          store,
          onEvent: async (event, { tx, attempt }) => {
            await credit(tx, event.id);
            if (attempt === 1) await terminate(tx);
            await credit(tx, `${event.id}:second`);
          },
        });
        const killed = await handler(await delivery(id));
        expect(killed.status).toBe(500);
        expect(await ledger()).toEqual([]);
        const retried = await handler(await delivery(id));
        expect(retried.status).toBe(200);
        expect(await ledger()).toEqual([id, `${id}:second`]);
      });
    }

    it('reports every answer to onAnswer, with the outcome, event and attempt', async () => {
      const { store } = await backend.make();
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
}
