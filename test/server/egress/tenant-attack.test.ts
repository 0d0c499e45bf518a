/**
 * The ten-tenant attack (issue 35), at the smallest scale that fills the real server's 256
 * delivery slots: eight tenants made with the default key, eight endpoints each at a port that
 * accepts and never answers, four events each (32 attempts a tenant, 256 in all, with the
 * defaults 4 / 32 / 256). Then a new tenant's deliveries to a fast receiver all arrive, after
 * the attackers' and while those are still held open (counts and order, no clock). The
 * same server bounds the tenants made from its default tenant (`--max-tenants-per-root 9`).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { cpf } from '../../support/fixtures.js';
import { type Ready, serve, stopAll, waitFor } from '../helpers.js';

const ATTACKERS = 8;
const ENDPOINTS = 8;
const EVENTS = 4;
const NEW_EVENTS = 12;

const servers: http.Server[] = [];
afterEach(async () => {
  stopAll();
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
});

/** Attempts the receiver that never answers saw end (the server gave up on them: its 10 s time-out). */
let ended = 0;

/** A receiver that records each request's event id in arrival order, and answers it (or holds it open forever). */
async function receiver(answers: boolean): Promise<{ url: string; arrived: string[]; open: () => number; endedBefore: number[] }> {
  const arrived: string[] = [];
  // How many of the other receiver's attempts had ended when each request arrived here.
  const endedBefore: number[] = [];
  let open = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      arrived.push(req.headers['x-service-event-id'] as string);
      endedBefore.push(ended);
      if (answers) res.writeHead(204).end();
      else {
        open++;
        res.on('close', () => {
          open--;
          ended++;
        });
      }
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, arrived, open: () => open, endedBefore };
}

let calls = 0;
async function call(ready: Ready, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(ready.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `attack-${++calls}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function ok(ready: Ready, key: string, method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const answer = await call(ready, key, method, path, body);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

async function tenant(ready: Ready): Promise<string> {
  return (await ok(ready, ready.api_key, 'POST', '/v1/test_helpers/tenants', {}))['api_key'] as string;
}

const user = (ready: Ready, key: string, n: number) =>
  ok(ready, key, 'POST', '/v1/users', { external_id: `u-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });

describe('serve under the ten-tenant attack', () => {
  it("a new tenant's deliveries all go while the attackers' 256 attempts hang, and the tree of the default tenant is bounded", async () => {
    const { child, ready } = await serve(['--max-tenants-per-root', String(ATTACKERS + 1)]);
    const hole = await receiver(false);
    const fast = await receiver(true);
    // The tenants and their endpoints first; then the events, tenant after tenant, so that the
    // attempts start within a second or two of each other, well inside the server's 10 s time-out.
    const attackers: string[] = [];
    for (let t = 0; t < ATTACKERS; t++) {
      const key = await tenant(ready);
      attackers.push(key);
      await Promise.all(Array.from({ length: ENDPOINTS }, (_, e) => ok(ready, key, 'POST', '/v1/webhook_endpoints', { url: `${hole.url}/t${t}/e${e}`, event_types: ['user.kyc_pending'] })));
    }
    const newcomer = await tenant(ready);
    const endpoint = (await ok(ready, newcomer, 'POST', '/v1/webhook_endpoints', { url: `${fast.url}/new`, event_types: ['user.kyc_pending'] }))['id'] as string;
    for (let t = 0; t < ATTACKERS; t++) await Promise.all(Array.from({ length: EVENTS }, (_, i) => user(ready, attackers[t] as string, t * 100 + i)));
    // The attackers hold the slots (all 256 before issue 35; at most 252 since: a share, or at least
    // the idle reserve, stays free for a tenant with nothing in flight).
    await waitFor(child, () => (hole.open() >= 220 ? true : undefined), 'the attackers to hold the slots');

    await Promise.all(Array.from({ length: NEW_EVENTS }, (_, i) => user(ready, newcomer, 10_000 + i)));
    await waitFor(child, () => (fast.arrived.length >= NEW_EVENTS ? true : undefined), "the new tenant's deliveries", 15_000);

    // Each of the new tenant's events arrived once, every one before any attacker's attempt ended...
    const events = (await ok(ready, newcomer, 'GET', '/v1/test_helpers/events?limit=100'))['data'] as Array<{ id: string }>;
    expect([...fast.arrived].sort()).toEqual(events.map((e) => e.id).sort());
    expect(fast.endedBefore.slice(0, NEW_EVENTS)).toEqual(Array(NEW_EVENTS).fill(0));
    expect(hole.arrived.length).toBeLessThanOrEqual(ATTACKERS * ENDPOINTS * EVENTS);
    const newDeliveries = (await ok(ready, newcomer, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries?limit=100`))['data'] as Array<{ status: string; attempt_count: number }>;
    expect(newDeliveries).toHaveLength(NEW_EVENTS);
    expect(newDeliveries.every((d) => d.status === 'succeeded' && d.attempt_count === 1)).toBe(true);
    // ...while theirs are held: in flight (no attempt recorded yet), or waiting for a slot.
    const attackerEndpoint = (((await ok(ready, attackers[0] as string, 'GET', '/v1/webhook_endpoints'))['data'] as Array<{ id: string }>)[0] as { id: string }).id;
    const attackerDeliveries = (await ok(ready, attackers[0] as string, 'GET', `/v1/webhook_endpoints/${attackerEndpoint}/deliveries`))['data'] as Array<{ status: string; attempt_count: number }>;
    expect(attackerDeliveries).toHaveLength(EVENTS);
    expect(attackerDeliveries.every((d) => d.status === 'pending' && d.attempt_count === 0)).toBe(true);

    // The default tenant's tree made its 9: the next one, asked by any of them, is refused and makes nothing.
    for (const key of [ready.api_key, newcomer, attackers[3] as string]) {
      const refused = await call(ready, key, 'POST', '/v1/test_helpers/tenants', {});
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 'tenant_limit_exceeded', details: { limit: ATTACKERS + 1, reason: 'tenants_per_root' } });
      expect(refused.body['message']).toMatch(/serve --max-tenants-per-root N/);
    }
  });
});
