/**
 * Issue 28, both halves together: the memory half's compact records and retention rules under
 * the storage port (`serve --data`). Deliveries past `deliveryLogSize` leave the database too
 * (their rows are deleted, and the ones kept load back at their positions, so listings and
 * cursors hold); idempotency records kept compact in memory replay the same bytes once read
 * back from their rows; events logged as versions are the envelopes emitted, after a reopen too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import type { SandboxEvent, SandboxOptions } from '../../../src/sandbox/index.js';
import { type DataStore, openDataStore } from '../../../src/server/data/store.js';
import { approvedUser, onrampBody } from '../../support/fixtures.js';

const dirs: string[] = [];
const stores: DataStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const OPTIONS: SandboxOptions = { seed: 'stored-retention', now: '2026-03-02T12:00:00.000Z', quoteRateLimit: 0, deliveryLogSize: 2, eventLogSize: 6 };
const URL_UP = 'https://receiver.example/hooks';

function open(dir: string): DataStore {
  const store = openDataStore(dir, OPTIONS);
  stores.push(store);
  store.sandbox.webhooks.listen(URL_UP, () => 200);
  return store;
}

function client(store: DataStore): PixUsdt {
  return new PixUsdt({ apiKey: store.sandbox.apiKey, fetch: store.sandbox.fetch, maxRetries: 0 });
}

function accept(store: DataStore, quoteId: string, key: string): Promise<Response> {
  return store.sandbox.fetch(`/v1/quotes/${quoteId}/accept`, { method: 'POST', headers: { authorization: `Bearer ${store.sandbox.apiKey}`, 'idempotency-key': key } });
}

async function deliveries(c: PixUsdt, endpointId: string): Promise<Array<{ id: string; status: string; event_id: string }>> {
  const out = [];
  // Two to a page: the cursor crosses the positions the trimmed deliveries left.
  for await (const d of c.webhookEndpoints.listDeliveries(endpointId, { limit: 2 })) out.push({ id: d.id, status: d.status, event_id: d.event_id });
  return out;
}

describe('retention and compact records under --data', () => {
  it('trimmed deliveries leave the database; compact answers and events read back the same bytes', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pix-usdt-stored-retention-'));
    dirs.push(dir);
    const first = open(dir);
    const c = client(first);
    const endpoint = await c.webhookEndpoints.create({ url: URL_UP, event_types: ['*'] });
    const userId = await approvedUser(c, 1);
    const accepted: Array<{ key: string; quoteId: string }> = [];
    for (let i = 0; i < 6; i++) {
      const quote = await c.quotes.create(onrampBody(userId, '100.00'));
      const key = `accept-${i}`;
      const res = await accept(first, quote.id, key);
      expect(res.status).toBe(201);
      accepted.push({ key, quoteId: quote.id });
      await first.sandbox.webhooks.flush();
    }
    await first.sandbox.webhooks.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const kept = await deliveries(c, endpoint.id);
    // Every event of the loop was delivered; at most twice `deliveryLogSize` are kept (trimmed in batches).
    expect(kept.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeLessThanOrEqual(4);
    expect(kept.every((d) => d.status === 'succeeded')).toBe(true);
    const delivered = first.sandbox.webhooks.delivered({ url: URL_UP });
    expect(delivered.length).toBeGreaterThan(kept.length);
    const trimmed = delivered.map((d) => d.deliveryId).filter((id) => !kept.some((k) => k.id === id));
    expect(trimmed.length).toBeGreaterThan(0);
    const replays = new Map<string, string>();
    for (const a of accepted) {
      const res = await accept(first, a.quoteId, a.key);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      replays.set(a.key, await res.text());
    }
    const events: SandboxEvent[] = first.sandbox.events();
    expect(events).toHaveLength(6);
    first.close();

    const second = open(dir);
    const again = client(second);
    // The kept deliveries, in order, over the same cursor pages; a trimmed one stays gone.
    expect(await deliveries(again, endpoint.id)).toEqual(kept);
    const gone = await second.sandbox.fetch(`/v1/webhook_deliveries/${trimmed[0] as string}`, { headers: { authorization: `Bearer ${second.sandbox.apiKey}` } });
    expect(gone.status).toBe(404);
    // Each stored answer replays byte for byte, from its row.
    for (const a of accepted) {
      const res = await accept(second, a.quoteId, a.key);
      expect(res.headers.get('idempotent-replayed')).toBe('true');
      expect(await res.text()).toBe(replays.get(a.key));
    }
    expect(second.sandbox.events()).toEqual(events);
    // A new delivery after the reopen takes the next position: the listing shows it first.
    const quote = await again.quotes.create(onrampBody(userId, '100.00'));
    await again.quotes.accept(quote.id);
    await second.sandbox.webhooks.flush();
    const after = await deliveries(again, endpoint.id);
    expect(after.length).toBeGreaterThan(0);
    expect(kept.map((k) => k.id)).not.toContain(after[0]?.id);
  });
});
