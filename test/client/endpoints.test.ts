/**
 * Every method of the client: HTTP method, path, query, body, headers and parsed result.
 */
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { PixUsdt } from '../../src/index.js';
import { API_KEY, BASE, ID, fixtures as f, json, makeClient, reply, requests, useMockServer } from './helpers.js';

useMockServer();

const SECRET_ENDPOINT = { ...f.endpoint, secret: 'whsec_abc' };
const ROTATED = { ...SECRET_ENDPOINT, previous_secret_expires_at: f.clock.now };
const PAGE = <T>(item: T) => ({ data: [item], next_cursor: null });
const offramp = {
  user_id: ID,
  source_currency: 'USDT',
  target_currency: 'BRL',
  source_amount: '10',
  pix_key: 'a@b.co',
  pix_key_type: 'email',
  deposit_network: 'polygon',
} as const;

interface Row {
  name: string;
  call: (c: PixUsdt) => PromiseLike<unknown>;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  status?: number;
  answer: unknown;
  /** What the method resolves to, when not the answer itself. */
  result?: (value: unknown) => unknown;
}

const page = (v: unknown) => ({ data: (v as { data: unknown }).data, next_cursor: (v as { next_cursor: unknown }).next_cursor });

const rows: Row[] = [
  { name: 'apiKeys.list', call: (c) => c.apiKeys.list({ limit: 10 }), method: 'GET', path: '/v1/api-keys', query: { limit: '10' }, answer: PAGE(f.apiKey), result: page },
  { name: 'apiKeys.rotate', call: (c) => c.apiKeys.rotate(ID), method: 'POST', path: `/v1/api-keys/${ID}/rotate`, answer: { ...f.apiKey, api_key: 'sk_test_new' } },
  {
    name: 'users.create',
    call: (c) => c.users.create({ external_id: 'ext-1', name: 'Ana', document_type: 'cpf', document_number: '123.456.789-09' }),
    method: 'POST',
    path: '/v1/users',
    body: { external_id: 'ext-1', name: 'Ana', document_type: 'cpf', document_number: '123.456.789-09' },
    status: 201,
    answer: f.user,
  },
  {
    name: 'users.list',
    call: (c) => c.users.list({ kyc_status: 'approved', cpf: '123.456.789-09', limit: 5 }),
    method: 'GET',
    path: '/v1/users',
    query: { kyc_status: 'approved', cpf: '123.456.789-09', limit: '5' },
    answer: PAGE(f.user),
    result: page,
  },
  { name: 'users.retrieve', call: (c) => c.users.retrieve(ID), method: 'GET', path: `/v1/users/${ID}`, answer: f.user },
  { name: 'users.update', call: (c) => c.users.update(ID, { name: 'Bia' }), method: 'PATCH', path: `/v1/users/${ID}`, body: { name: 'Bia' }, answer: f.user },
  { name: 'users.delete', call: (c) => c.users.delete(ID), method: 'DELETE', path: `/v1/users/${ID}`, status: 204, answer: null, result: () => undefined },
  { name: 'users.wallet', call: (c) => c.users.wallet(ID), method: 'GET', path: `/v1/users/${ID}/wallet`, answer: f.wallet },
  {
    name: 'users.requestLimitUpgrade',
    call: (c) => c.users.requestLimitUpgrade(ID, { requested_daily_limit_brl: '1000' }),
    method: 'POST',
    path: `/v1/users/${ID}/limit-upgrade-requests`,
    body: { requested_daily_limit_brl: '1000' },
    status: 201,
    answer: f.limitUpgrade,
  },
  { name: 'quotes.create', call: (c) => c.quotes.create(offramp), method: 'POST', path: '/v1/quotes', body: offramp, status: 201, answer: f.quote },
  {
    name: 'quotes.list',
    call: (c) => c.quotes.list({ user_id: ID, status: 'active' }),
    method: 'GET',
    path: '/v1/quotes',
    query: { user_id: ID, status: 'active' },
    answer: PAGE(f.quote),
    result: page,
  },
  { name: 'quotes.retrieve', call: (c) => c.quotes.retrieve(ID), method: 'GET', path: `/v1/quotes/${ID}`, answer: f.quote },
  { name: 'quotes.accept', call: (c) => c.quotes.accept(ID), method: 'POST', path: `/v1/quotes/${ID}/accept`, body: {}, status: 201, answer: f.conversion },
  {
    name: 'conversions.list',
    call: (c) => c.conversions.list({ status: 'standby', transaction_type: 'pix_offramp' }),
    method: 'GET',
    path: '/v1/conversions',
    query: { status: 'standby', transaction_type: 'pix_offramp' },
    answer: PAGE(f.conversion),
    result: page,
  },
  { name: 'conversions.retrieve', call: (c) => c.conversions.retrieve(ID), method: 'GET', path: `/v1/conversions/${ID}`, answer: f.conversion },
  { name: 'conversions.cancel', call: (c) => c.conversions.cancel(ID), method: 'POST', path: `/v1/conversions/${ID}/cancel`, answer: { ...f.conversion, status: 'canceled' } },
  { name: 'conversions.liquidate', call: (c) => c.conversions.liquidate(ID), method: 'POST', path: `/v1/conversions/${ID}/liquidate`, answer: { ...f.conversion, status: 'liquidated' } },
  { name: 'transactions.create', call: (c) => c.transactions.create({ quote_id: ID }), method: 'POST', path: '/v1/transactions', body: { quote_id: ID }, status: 201, answer: f.transaction },
  {
    name: 'transactions.list',
    call: (c) => c.transactions.list({ status: 'completed', cursor: 'abc' }),
    method: 'GET',
    path: '/v1/transactions',
    query: { status: 'completed', cursor: 'abc' },
    answer: PAGE(f.transaction),
    result: page,
  },
  { name: 'transactions.retrieve', call: (c) => c.transactions.retrieve(ID), method: 'GET', path: `/v1/transactions/${ID}`, answer: f.transaction },
  {
    name: 'webhookEndpoints.create',
    call: (c) => c.webhookEndpoints.create({ url: 'https://example.com/hooks', event_types: ['*'] }),
    method: 'POST',
    path: '/v1/webhook_endpoints',
    body: { url: 'https://example.com/hooks', event_types: ['*'] },
    status: 201,
    answer: SECRET_ENDPOINT,
  },
  { name: 'webhookEndpoints.list', call: (c) => c.webhookEndpoints.list(), method: 'GET', path: '/v1/webhook_endpoints', answer: PAGE(f.endpoint), result: page },
  { name: 'webhookEndpoints.retrieve', call: (c) => c.webhookEndpoints.retrieve(ID), method: 'GET', path: `/v1/webhook_endpoints/${ID}`, answer: f.endpoint },
  {
    name: 'webhookEndpoints.update',
    call: (c) => c.webhookEndpoints.update(ID, { status: 'disabled' }),
    method: 'PATCH',
    path: `/v1/webhook_endpoints/${ID}`,
    body: { status: 'disabled' },
    answer: { ...f.endpoint, status: 'disabled' },
  },
  { name: 'webhookEndpoints.delete', call: (c) => c.webhookEndpoints.delete(ID), method: 'DELETE', path: `/v1/webhook_endpoints/${ID}`, answer: { id: ID, deleted: true } },
  {
    name: 'webhookEndpoints.rotateSecret',
    call: (c) => c.webhookEndpoints.rotateSecret(ID, { grace_period_seconds: 0 }),
    method: 'POST',
    path: `/v1/webhook_endpoints/${ID}/rotate_secret`,
    body: { grace_period_seconds: 0 },
    answer: ROTATED,
  },
  {
    name: 'webhookEndpoints.listDeliveries',
    call: (c) => c.webhookEndpoints.listDeliveries(ID, { status: 'failed' }),
    method: 'GET',
    path: `/v1/webhook_endpoints/${ID}/deliveries`,
    query: { status: 'failed' },
    answer: PAGE(f.delivery),
    result: page,
  },
  { name: 'webhookDeliveries.retrieve', call: (c) => c.webhookDeliveries.retrieve(ID), method: 'GET', path: `/v1/webhook_deliveries/${ID}`, answer: f.delivery },
  { name: 'webhookDeliveries.redeliver', call: (c) => c.webhookDeliveries.redeliver(ID), method: 'POST', path: `/v1/webhook_deliveries/${ID}/redeliver`, answer: f.delivery },
  {
    name: 'testHelpers.conversions.simulateOnrampPixPaid',
    call: (c) => c.testHelpers.conversions.simulateOnrampPixPaid(ID, { settle: true }),
    method: 'POST',
    path: `/v1/test_helpers/conversions/${ID}/simulate-onramp-pix-paid`,
    body: { settle: true },
    answer: f.conversion,
  },
  {
    name: 'testHelpers.conversions.simulateOfframpDeposit',
    call: (c) => c.testHelpers.conversions.simulateOfframpDeposit(ID, { amount: '9.5' }),
    method: 'POST',
    path: `/v1/test_helpers/conversions/${ID}/simulate-offramp-deposit`,
    body: { amount: '9.5' },
    answer: f.conversion,
  },
  { name: 'testHelpers.conversions.expire', call: (c) => c.testHelpers.conversions.expire(ID), method: 'POST', path: `/v1/test_helpers/conversions/${ID}/expire`, body: {}, answer: f.conversion },
  {
    name: 'testHelpers.conversions.fail',
    call: (c) => c.testHelpers.conversions.fail(ID, { reason: 'pix_rejected' }),
    method: 'POST',
    path: `/v1/test_helpers/conversions/${ID}/fail`,
    body: { reason: 'pix_rejected' },
    answer: f.conversion,
  },
  {
    name: 'testHelpers.conversions.deposit',
    call: (c) => c.testHelpers.conversions.deposit(ID, { amount: '10' }),
    method: 'POST',
    path: `/v1/test_helpers/conversions/${ID}/deposit`,
    body: { amount: '10' },
    answer: f.conversion,
  },
  { name: 'testHelpers.conversions.failCrypto', call: (c) => c.testHelpers.conversions.failCrypto(ID), method: 'POST', path: `/v1/test_helpers/conversions/${ID}/fail-crypto`, body: {}, answer: f.conversion },
  { name: 'testHelpers.conversions.failPix', call: (c) => c.testHelpers.conversions.failPix(ID), method: 'POST', path: `/v1/test_helpers/conversions/${ID}/fail-pix`, body: {}, answer: f.conversion },
  { name: 'testHelpers.transactions.pay', call: (c) => c.testHelpers.transactions.pay(ID), method: 'POST', path: `/v1/test_helpers/transactions/${ID}/pay`, body: {}, answer: f.transaction },
  {
    name: 'testHelpers.users.kyc',
    call: (c) => c.testHelpers.users.kyc(ID, { status: 'expired' }),
    method: 'POST',
    path: `/v1/test_helpers/users/${ID}/kyc`,
    body: { status: 'expired' },
    answer: f.kycView,
  },
  {
    name: 'testHelpers.tenants.create',
    call: (c) => c.testHelpers.tenants.create({ capabilities: ['sandbox:control'] }),
    method: 'POST',
    path: '/v1/test_helpers/tenants',
    body: { capabilities: ['sandbox:control'] },
    status: 201,
    answer: { tenant_id: 'tn_1', api_key: 'sk_test_tenant', api_keys: [{ ...f.apiKey, api_key: 'sk_test_tenant' }] },
  },
  {
    name: 'testHelpers.tenants.snapshot',
    call: (c) => c.testHelpers.tenants.snapshot(),
    method: 'GET',
    path: '/v1/test_helpers/tenant/snapshot',
    answer: { format: 'pix-usdt-tenant', version: 1, environment: 'sandbox', exported_at: '2026-03-02T12:00:00.000Z', tenant: { id: 'tn_1' } },
  },
  { name: 'testHelpers.clock.retrieve', call: (c) => c.testHelpers.clock.retrieve(), method: 'GET', path: '/v1/test_helpers/clock', answer: f.clock },
  {
    name: 'testHelpers.clock.advance',
    call: (c) => c.testHelpers.clock.advance({ seconds: 900 }),
    method: 'POST',
    path: '/v1/test_helpers/clock/advance',
    body: { seconds: 900 },
    answer: f.clock,
  },
];

describe('every endpoint', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const { client } = makeClient({ validation: 'strict' });
    reply(row.status === 204 ? () => new HttpResponse(null, { status: 204 }) : json(row.answer, row.status ?? 200));

    const value = await row.call(client);

    expect(requests()).toHaveLength(1);
    const req = requests()[0]!;
    expect(req.method).toBe(row.method);
    expect(req.url.origin).toBe(BASE);
    expect(req.url.pathname).toBe(row.path);
    expect(Object.fromEntries(req.url.searchParams)).toEqual(row.query ?? {});
    expect(req.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(req.headers.get('accept')).toBe('application/json');
    const key = req.headers.get('idempotency-key');
    if (row.method === 'GET') expect(key).toBeNull();
    else expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    if (row.body === undefined) {
      expect(req.body).toBe('');
      expect(req.headers.get('content-type')).toBeNull();
    } else {
      expect(JSON.parse(req.body)).toEqual(row.body);
      expect(req.headers.get('content-type')).toBe('application/json');
    }
    expect(row.result ? row.result(value) : value).toEqual(row.result ? row.result(row.answer) : row.answer);
  });

  it('covers every method of every resource', () => {
    const { client } = makeClient();
    const groups: Record<string, object> = {
      apiKeys: client.apiKeys,
      users: client.users,
      quotes: client.quotes,
      conversions: client.conversions,
      transactions: client.transactions,
      webhookEndpoints: client.webhookEndpoints,
      webhookDeliveries: client.webhookDeliveries,
      'testHelpers.conversions': client.testHelpers.conversions,
      'testHelpers.transactions': client.testHelpers.transactions,
      'testHelpers.users': client.testHelpers.users,
      'testHelpers.tenants': client.testHelpers.tenants,
      'testHelpers.clock': client.testHelpers.clock,
    };
    const all = Object.entries(groups).flatMap(([name, resource]) =>
      Object.getOwnPropertyNames(Object.getPrototypeOf(resource))
        .filter((m) => m !== 'constructor')
        .map((m) => `${name}.${m}`),
    );
    expect(new Set(rows.map((r) => r.name))).toEqual(new Set(all));
  });

  it('uses the caller idempotency key when given', async () => {
    const { client } = makeClient();
    reply(json(f.conversion));
    await client.conversions.cancel(ID, { idempotencyKey: 'my-key-1' });
    expect(requests()[0]!.headers.get('idempotency-key')).toBe('my-key-1');
  });

  it('makes a new idempotency key for each logical call', async () => {
    const { client } = makeClient();
    reply(json(f.conversion), json(f.conversion));
    await client.conversions.cancel(ID);
    await client.conversions.cancel(ID);
    const [a, b] = requests().map((r) => r.headers.get('idempotency-key'));
    expect(a).not.toBeNull();
    expect(a).not.toBe(b);
  });

  it('uses the client key factory when given', async () => {
    let n = 0;
    const { client } = makeClient({ idempotencyKey: () => `k-${++n}` });
    reply(json(f.user, 201));
    await client.users.create({ external_id: 'e', name: 'n', document_type: 'cpf', document_number: '1' });
    expect(requests()[0]!.headers.get('idempotency-key')).toBe('k-1');
  });

  it('percent-encodes path parameters', async () => {
    const { client } = makeClient();
    reply(json(f.user));
    await client.users.retrieve('a/b?c#d e');
    expect(requests()[0]!.url.pathname).toBe('/v1/users/a%2Fb%3Fc%23d%20e');
  });

  it.each(['', '.', '..'])('refuses the id %j before sending', async (id) => {
    const { client } = makeClient();
    await expect(async () => client.users.retrieve(id)).rejects.toMatchObject({ name: 'ClientValidationError', code: 'validation_error' });
    expect(requests()).toHaveLength(0);
  });
});
