/**
 * Issue 21: no answer tells a tenant what another tenant holds. Tenant B names tenant A's
 * objects (in the path, in a body, in a filter) and ids that exist nowhere: every route answers
 * both alike (status, code, message, details; only the request id and the id named differ).
 * Every route of the sandbox with a path id is covered (a new one fails here until it is mapped).
 */
import { describe, expect, it } from 'vitest';
import { createSandbox } from '../../../src/sandbox/index.js';
import { ALL_ROUTES } from '../../../src/sandbox/routes.js';
import { type RawAnswer, approvedUser, raw } from '../raw.js';
import { onrampBody } from '../../support/fixtures.js';

const NOWHERE = '5f0c1d2e-3b4a-4c5d-8e6f-708192a3b4c5';

/** A's object of the kind a path names, by the path's start. */
const KINDS: Array<[RegExp, string]> = [
  [/^\/v1\/api-keys\/:id/, 'key'],
  [/^\/v1\/users\/:id/, 'user'],
  [/^\/v1\/quotes\/:id/, 'quote'],
  [/^\/v1\/conversions\/:id/, 'conversion'],
  [/^\/v1\/transactions\/:id/, 'transaction'],
  [/^\/v1\/webhook_endpoints\/:id/, 'endpoint'],
  [/^\/v1\/webhook_deliveries\/:id/, 'delivery'],
  [/^\/v1\/test_helpers\/conversions\/:id/, 'conversion'],
  [/^\/v1\/test_helpers\/transactions\/:id/, 'transaction'],
  [/^\/v1\/test_helpers\/users\/:id/, 'user'],
  [/^\/v1\/test_helpers\/faults\/:id/, 'fault'],
];

/** A body each route accepts, so that the answer comes from the lookup, not from validation. */
const BODIES: Record<string, unknown> = {
  'PATCH /v1/users/:id': { name: 'Renamed' },
  'POST /v1/users/:id/limit-upgrade-requests': { reason: 'more' },
  'POST /v1/test_helpers/conversions/:id/fail': { reason: 'pix_rejected' },
  'POST /v1/test_helpers/conversions/:id/deposit': { amount: '10.00' },
  'POST /v1/test_helpers/users/:id/kyc': { status: 'approved' },
  'PATCH /v1/webhook_endpoints/:id': { description: 'x' },
};

/** The answer without what may differ: the request id, and the id named (either one). */
function shape(answer: RawAnswer, ids: string[]): unknown {
  let text = JSON.stringify(answer.body ?? null);
  for (const id of ids) text = text.replaceAll(id, '<id>');
  const body = JSON.parse(text) as Record<string, unknown> | null;
  if (body !== null && typeof body === 'object') delete body['request_id'];
  return { status: answer.status, body };
}

async function world() {
  const sandbox = createSandbox({ seed: 'existence', now: '2026-03-02T12:00:00Z' });
  const b = sandbox.createTenant();
  // Tenant A (the default one): one object of each kind.
  sandbox.webhooks.listen('https://a.example/hooks', () => 500);
  const endpoint = (await raw(sandbox, 'POST', '/v1/webhook_endpoints', { url: 'https://a.example/hooks', event_types: ['*'] })).body.id as string;
  const user = await approvedUser(sandbox, 1);
  const quote = (await raw(sandbox, 'POST', '/v1/quotes', onrampBody(user))).body.id as string;
  const conversion = (await raw(sandbox, 'POST', `/v1/quotes/${quote}/accept`, {})).body.id as string;
  const spare = (await raw(sandbox, 'POST', '/v1/quotes', onrampBody(user))).body.id as string;
  const transaction = (await raw(sandbox, 'POST', '/v1/transactions', { quote_id: spare })).body.id as string;
  await sandbox.webhooks.flush();
  const delivery = (await raw(sandbox, 'GET', `/v1/webhook_endpoints/${endpoint}/deliveries`)).body.data[0]?.id as string;
  const fault = (await raw(sandbox, 'POST', '/v1/test_helpers/faults', { match: 'GET /v1/nothing', fault: { type: 'network' } })).body.id as string;
  const key = (await raw(sandbox, 'GET', '/v1/api-keys')).body.data[0].id as string;
  const a: Record<string, string> = { user, quote, conversion, transaction, endpoint, delivery, fault, key };
  for (const [kind, id] of Object.entries(a)) expect(String(id), kind).toMatch(/^[0-9a-f-]{36}$/);
  return { sandbox, b, a };
}

describe("another tenant's object answers as one that exists nowhere", () => {
  it('on every route with a path id (rotate included: 404 api_key_not_found, not 401)', async () => {
    const { sandbox, b, a } = await world();
    const routes = ALL_ROUTES.filter((r) => r.path.includes('/:'));
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      const kind = KINDS.find(([re]) => re.test(route.path))?.[1];
      expect(kind, `no object kind mapped for ${route.method} ${route.path}: add it to KINDS`).toBeDefined();
      const theirs = a[kind as string] as string;
      const name = `${route.method} ${route.path}`;
      const body = route.method === 'GET' || route.method === 'DELETE' ? undefined : (BODIES[name] ?? {});
      const call = (id: string) => raw(sandbox, route.method, route.path.replace(/:[a-z_]+/, id), body, { apiKey: b.apiKey });
      const foreign = await call(theirs);
      const nowhere = await call(NOWHERE);
      expect(nowhere.status, `${name}: an id that exists nowhere reaches the lookup (${JSON.stringify(nowhere.body)})`).toBe(404);
      expect(shape(foreign, [theirs, NOWHERE]), name).toEqual(shape(nowhere, [theirs, NOWHERE]));
    }
    // A's objects are untouched: its key still works, its conversion still waits.
    expect((await raw(sandbox, 'GET', `/v1/conversions/${a['conversion']}`)).body.status).toBe('awaiting_deposit');
  });

  it('in bodies and filters: a quote for, or a listing of, another tenant\'s user; a transaction of its quote', async () => {
    const { sandbox, b, a } = await world();
    const cases: Array<[string, string, (id: string) => unknown]> = [
      ['POST', '/v1/quotes', (id) => onrampBody(id)],
      ['POST', '/v1/transactions', (id) => ({ quote_id: id })],
    ];
    for (const [method, path, body] of cases) {
      const theirs = path === '/v1/quotes' ? (a['user'] as string) : (a['quote'] as string);
      const foreign = await raw(sandbox, method, path, body(theirs), { apiKey: b.apiKey });
      const nowhere = await raw(sandbox, method, path, body(NOWHERE), { apiKey: b.apiKey });
      expect(nowhere.status, path).toBe(404);
      expect(shape(foreign, [theirs, NOWHERE]), path).toEqual(shape(nowhere, [theirs, NOWHERE]));
    }
    for (const path of ['/v1/quotes', '/v1/conversions', '/v1/transactions']) {
      const foreign = await raw(sandbox, 'GET', `${path}?user_id=${a['user'] as string}`, undefined, { apiKey: b.apiKey });
      const nowhere = await raw(sandbox, 'GET', `${path}?user_id=${NOWHERE}`, undefined, { apiKey: b.apiKey });
      expect(foreign.status, path).toBe(200);
      expect(shape(foreign, [a['user'] as string, NOWHERE]), path).toEqual(shape(nowhere, [a['user'] as string, NOWHERE]));
    }
  });
});
