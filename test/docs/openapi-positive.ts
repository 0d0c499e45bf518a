// The positive half of the property-based run against docs/openapi.json (issue 21): for every
// operation, requests whose body and query are generated from the document's schemas must be
// accepted (2xx), on one tenant of a real server; a second tenant's whole scenario (user, quote,
// accept, pay, completed) answers the same before and after.
//
// What a schema cannot say comes from the tenant's own state, never from loosening the check:
// - path ids name an object of the tenant in the state the operation needs (a conversion
//   awaiting its deposit for `cancel`, in standby for `liquidate`, funded for `fail-pix`...);
// - references in a body (`user_id`, `quote_id`) name the tenant's objects; `external_id` and
//   `document_number` are fresh (unique per tenant; a CPF's check digits); an offramp's
//   `pix_key` is one the sandbox resolves for its `pix_key_type`; `occurred_at` is the tenant's
//   now (a helper refuses the future and the time before the last change); a transaction is
//   paid its own amount;
// - amounts follow the currency (BRL 2 decimals, USDT 6, above zero) and cover the withdrawal
//   fee at the tenant's price (docs/sandbox.md, "Pricing"): a generated amount that does not is
//   skipped (`fc.pre`), not sent;
// - `POST /v1/users/{id}/limit-upgrade-requests` answers 422 `limit_upgrade_not_available`
//   for every valid request, as the reference says ("not yet enabled").
// Whatever a request changes for the tenant (its price, limits, timings, a fault plan, a webhook
// endpoint to a generated host) is put back right after, so the next fixtures work; at the end
// the tenant is left hostile (feed down, limits 0, 1 ms timings, every call faulted) while the
// other tenant's scenario runs again.
import Big from 'big.js';
import fc from 'fast-check';
import { expect } from 'vitest';
import { generateCnpj } from '../../src/pix/testing.js';
import { SANDBOX_PIX_EMAIL, SANDBOX_PIX_EVP, SANDBOX_PIX_PHONE } from '../../src/sandbox/index.js';
import type { RunningServer } from '../../src/server/http/start.js';
import { cpf, onrampBody } from '../support/fixtures.js';
import { type Operation, type Parameter, operations, valid } from './openapi-values.js';

type Json = Record<string, unknown>;
interface Answer {
  status: number;
  text: string;
  json: Json;
}

// A loopback receiver that refuses at once: deliveries exist and fail fast, nothing leaves the machine.
const RECEIVER = 'http://127.0.0.1:9/hooks';

/** One tenant of the server, through its own key. */
class Tenant {
  #quotes = 0;
  constructor(
    readonly url: string,
    public key: string,
    readonly cpfBase: number,
  ) {}
  #n = 0;

  async call(method: string, path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (method !== 'GET') headers['idempotency-key'] = crypto.randomUUID();
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method === 'POST' && path === '/v1/quotes') await this.#roomForQuote();
    const res = await fetch(`${this.url}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    let json: Json = {};
    try {
      json = text === '' ? {} : (JSON.parse(text) as Json);
    } catch {
      // Not JSON: the status tells.
    }
    return { status: res.status, text, json };
  }

  /** A call that must succeed (a fixture): its body. */
  async ok(method: string, path: string, body?: unknown): Promise<Json> {
    const answer = await this.call(method, path, body);
    if (answer.status >= 300) throw new Error(`fixture ${method} ${path} ${JSON.stringify(body)} -> ${answer.status} ${answer.text}`);
    return answer.json;
  }

  // The quote rate limit (60 a minute per key) counts on the tenant's clock: move it on in time.
  async #roomForQuote(): Promise<void> {
    if (++this.#quotes < 50) return;
    this.#quotes = 1;
    await this.ok('POST', '/v1/test_helpers/clock/advance', { seconds: 61 });
  }

  fresh(): number {
    return this.cpfBase + ++this.#n;
  }

  async user(approved = false): Promise<string> {
    const n = this.fresh();
    const user = await this.ok('POST', '/v1/users', { external_id: `fixture-${n}`, name: 'Ana Fixture', document_type: 'cpf', document_number: cpf(n) });
    if (approved) await this.ok('POST', `/v1/test_helpers/users/${String(user['id'])}/kyc`, { status: 'approved' });
    return user['id'] as string;
  }

  async quote(direction: 'onramp' | 'offramp' = 'onramp'): Promise<Json> {
    const user = await this.user(true);
    const body =
      direction === 'onramp'
        ? onrampBody(user)
        : { user_id: user, source_currency: 'USDT', target_currency: 'BRL', source_amount: '100.000000', pix_key: cpf(this.fresh()), pix_key_type: 'cpf', deposit_network: 'polygon' };
    return this.ok('POST', '/v1/quotes', body);
  }

  async conversion(direction: 'onramp' | 'offramp' = 'onramp'): Promise<string> {
    const quote = await this.quote(direction);
    return (await this.ok('POST', `/v1/quotes/${String(quote['id'])}/accept`, {}))['id'] as string;
  }

  async funded(): Promise<string> {
    const id = await this.conversion('onramp');
    await this.ok('POST', `/v1/test_helpers/conversions/${id}/simulate-onramp-pix-paid`, {});
    return id;
  }

  async standby(): Promise<string> {
    const id = await this.conversion('onramp');
    await this.ok('POST', `/v1/test_helpers/conversions/${id}/simulate-onramp-pix-paid`, { amount: '500.00' });
    return id;
  }

  async transaction(): Promise<Json> {
    const quote = await this.quote('onramp');
    return this.ok('POST', '/v1/transactions', { quote_id: quote['id'] });
  }

  async endpoint(): Promise<string> {
    return (await this.ok('POST', '/v1/webhook_endpoints', { url: RECEIVER, event_types: ['*'] }))['id'] as string;
  }

  async delivery(): Promise<string> {
    const endpoint = await this.endpoint();
    await this.user(true);
    const page = await this.ok('GET', `/v1/webhook_endpoints/${endpoint}/deliveries`);
    return ((page['data'] as Json[])[0] as Json)['id'] as string;
  }

  async now(): Promise<string> {
    return (await this.ok('GET', '/v1/test_helpers/clock'))['now'] as string;
  }
}

const DECIMALS = { BRL: 2, USDT: 6 } as const;

/** An amount as its currency takes it: above zero, and no more decimals than the currency has. */
function fits(amount: unknown, currency: keyof typeof DECIMALS, atLeast = '0'): boolean {
  if (typeof amount !== 'string') return false;
  const decimals = amount.split('.')[1]?.length ?? 0;
  return decimals <= DECIMALS[currency] && new Big(amount).gt(atLeast);
}

/** A Pix key the sandbox resolves, of a type. */
function resolvingKey(type: string, n: number): string {
  switch (type) {
    case 'cnpj':
      return generateCnpj();
    case 'email':
      return SANDBOX_PIX_EMAIL;
    case 'phone':
      return SANDBOX_PIX_PHONE;
    case 'evp':
      return SANDBOX_PIX_EVP;
    default:
      return cpf(n);
  }
}

interface Prepared {
  params: Record<string, string>;
  body: unknown;
  /** The status a valid request gets (default: any 2xx). */
  status?: number;
  /** Puts back what the request changed for the tenant. */
  after?: (answer: Answer) => Promise<void>;
}

type Generated = { body: unknown; query: Array<[string, unknown]> };

/** The tenant's objects and the body overlays an operation needs (see the header comment). */
async function prepare(t: Tenant, operationId: string, generated: unknown): Promise<Prepared> {
  const body = generated === undefined ? undefined : structuredClone(generated) as Json;
  const at = async (): Promise<void> => {
    if (body !== undefined && 'occurred_at' in body) body['occurred_at'] = await t.now();
  };
  const restore = async (name: string): Promise<NonNullable<Prepared['after']>> => {
    const before = await t.ok('GET', `/v1/test_helpers/${name}`);
    return async () => void (await t.ok('POST', `/v1/test_helpers/${name}`, before));
  };
  switch (operationId) {
    case 'testHelpers.tenants.create':
      // A fork's snapshot is a whole document the schema cannot describe beyond "an object": the tenant's own.
      if (body !== undefined && 'snapshot' in body) {
        const rest = { ...body };
        delete rest['capabilities'];
        return { params: {}, body: { ...rest, snapshot: await t.ok('GET', '/v1/test_helpers/tenant/snapshot') } };
      }
      return { params: {}, body };
    case 'apiKeys.rotate': {
      const key = ((await t.ok('GET', '/v1/api-keys'))['data'] as Json[])[0] as Json;
      return { params: { id: key['id'] as string }, body, after: async (answer) => void (t.key = answer.json['api_key'] as string) };
    }
    case 'conversions.retrieve':
    case 'conversions.cancel':
      return { params: { id: await t.conversion() }, body };
    case 'conversions.liquidate':
      return { params: { id: await t.standby() }, body };
    case 'quotes.create': {
      const b = body as Json;
      const onramp = b['source_currency'] === 'BRL';
      if (b['source_amount'] !== undefined) fc.pre(onramp ? fits(b['source_amount'], 'BRL', '6') : fits(b['source_amount'], 'USDT', '0.01'));
      else fc.pre(onramp ? fits(b['target_amount'], 'USDT', '1') : fits(b['target_amount'], 'BRL'));
      b['user_id'] = await t.user();
      if (!onramp) b['pix_key'] = resolvingKey(b['pix_key_type'] as string, t.fresh());
      return { params: {}, body: b };
    }
    case 'quotes.retrieve':
    case 'quotes.accept':
      return { params: { id: (await t.quote())['id'] as string }, body };
    case 'testHelpers.conversions.deposit': {
      const amount = (body as Json)['amount'];
      fc.pre(fits(amount, 'BRL') || fits(amount, 'USDT'));
      return { params: { id: await t.conversion(fits(amount, 'BRL') ? 'onramp' : 'offramp') }, body };
    }
    case 'testHelpers.conversions.simulateOnrampPixPaid':
      if (body?.['amount'] !== undefined) fc.pre(fits(body['amount'], 'BRL'));
      return { params: { id: await t.conversion('onramp') }, body };
    case 'testHelpers.conversions.simulateOfframpDeposit':
      if (body?.['amount'] !== undefined) fc.pre(fits(body['amount'], 'USDT'));
      return { params: { id: await t.conversion('offramp') }, body };
    case 'testHelpers.conversions.expire':
    case 'testHelpers.conversions.fail':
    case 'testHelpers.conversions.failCrypto': {
      const id = await t.conversion();
      await at();
      return { params: { id }, body };
    }
    case 'testHelpers.conversions.failPix': {
      const id = await t.funded();
      await at();
      return { params: { id }, body };
    }
    case 'testHelpers.faults.create':
      return { params: {}, body, after: async () => void (await t.ok('DELETE', '/v1/test_helpers/faults')) };
    case 'testHelpers.faults.delete':
      return { params: { id: (await t.ok('POST', '/v1/test_helpers/faults', { match: 'GET /v1/nothing', fault: { type: 'network' } }))['id'] as string }, body };
    case 'testHelpers.price.update':
      return { params: {}, body, after: await restore('price') };
    case 'testHelpers.limits.update':
      return { params: {}, body, after: await restore('limits') };
    case 'testHelpers.settings.update':
      return { params: {}, body, after: await restore('settings') };
    case 'testHelpers.transactions.pay': {
      const tx = await t.transaction();
      if (body !== undefined && 'amount' in body) body['amount'] = tx['source_amount'];
      return { params: { id: tx['id'] as string }, body };
    }
    case 'testHelpers.users.kyc':
      return { params: { id: await t.user() }, body };
    case 'transactions.create':
      return { params: {}, body: { ...body, quote_id: (await t.quote())['id'] } };
    case 'transactions.retrieve':
      return { params: { id: (await t.transaction())['id'] as string }, body };
    case 'users.create': {
      const n = t.fresh();
      return { params: {}, body: { ...body, external_id: `generated-${n}`, document_number: cpf(n) } };
    }
    case 'users.update': {
      if (body !== undefined && 'external_id' in body) body['external_id'] = `renamed-${t.fresh()}`;
      return { params: { id: await t.user() }, body };
    }
    case 'users.retrieve':
    case 'users.delete':
    case 'users.wallet':
      return { params: { id: await t.user() }, body };
    case 'users.requestLimitUpgrade':
      return { params: { id: await t.user() }, body, status: 422 };
    case 'webhookDeliveries.retrieve':
    case 'webhookDeliveries.redeliver':
      return { params: { id: await t.delivery() }, body };
    case 'webhookEndpoints.create':
      return { params: {}, body, after: async (answer) => void (await t.ok('DELETE', `/v1/webhook_endpoints/${String(answer.json['id'])}`)) };
    case 'webhookEndpoints.update': {
      const id = await t.endpoint();
      return { params: { id }, body, after: async () => void (await t.ok('DELETE', `/v1/webhook_endpoints/${id}`)) };
    }
    case 'webhookEndpoints.retrieve':
    case 'webhookEndpoints.delete':
    case 'webhookEndpoints.listDeliveries':
    case 'webhookEndpoints.rotateSecret':
      return { params: { id: await t.endpoint() }, body };
    default:
      return { params: {}, body };
  }
}

/** A valid request of an operation: its body (when it takes one) and query, from the document. */
function requestOf(operation: Operation, ids: fc.Arbitrary<string>): fc.Arbitrary<Generated> {
  const parameters = (operation.parameters ?? []).filter((p): p is Parameter => !('$ref' in p));
  // A cursor is only valid when the API wrote it: left out.
  const query = fc.tuple(...parameters.filter((p) => p.in === 'query' && p.name !== 'cursor').map((p) => fc.option(fc.tuple(fc.constant(p.name), valid(p.schema, ids)), { nil: undefined })));
  const schema = operation.requestBody?.content['application/json'].schema;
  const body = schema === undefined ? fc.constant(undefined) : operation.requestBody?.required === true ? valid(schema, ids) : fc.option(valid(schema, ids), { nil: undefined });
  return fc.tuple(body, query).map(([b, q]) => ({ body: b, query: q.filter((x): x is [string, unknown] => x !== undefined) }));
}

/** What a second tenant's suite sees: its settings, a quote's rate and TTL, a conversion's window and end. */
async function scenario(t: Tenant): Promise<Json> {
  const settings: Json = {};
  for (const name of ['price', 'limits', 'settings']) settings[name] = await t.ok('GET', `/v1/test_helpers/${name}`);
  const quote = await t.quote('onramp');
  const conversion = await t.ok('POST', `/v1/quotes/${String(quote['id'])}/accept`, {});
  const paid = await t.ok('POST', `/v1/test_helpers/conversions/${String(conversion['id'])}/simulate-onramp-pix-paid`, { settle: true });
  const ms = (a: unknown, b: unknown): number => Date.parse(String(a)) - Date.parse(String(b));
  return {
    settings,
    quote: { exchange_rate: quote['exchange_rate'], net_target_amount: quote['net_target_amount'], ttl_ms: ms(quote['expires_at'], quote['created_at']) },
    conversion: { status: conversion['status'], window_ms: ms(conversion['deposit_window_expires_at'], conversion['created_at']) },
    paid: { status: paid['status'] },
    final: (await t.ok('GET', `/v1/conversions/${String(conversion['id'])}`))['status'],
  };
}

/**
 * The positive run: `runs` valid requests per operation on tenant P, each checked by `check`
 * (status and body against the document) and accepted; tenant S's scenario before and after.
 * Returns the statuses seen per operation.
 */
export async function runPositive(server: RunningServer, options: { seed: number; runs: number; check: (operation: Operation, status: number, text: string) => void }): Promise<Map<string, number[]>> {
  const control = new Tenant(server.url, server.sandbox.apiKey, 0);
  const tenantKey = async (): Promise<string> => (await control.ok('POST', '/v1/test_helpers/tenants', {}))['api_key'] as string;
  const p = new Tenant(server.url, await tenantKey(), 10_000);
  const s = new Tenant(server.url, await tenantKey(), 20_000);
  const before = await scenario(s);
  expect(before['final']).toBe('completed');
  const seen = new Map<string, number[]>();
  const ids = fc.uuid({ version: 4 });
  for (const { template, method, operation } of operations) {
    await fc.assert(
      fc.asyncProperty(requestOf(operation, ids), async (generated) => {
        const prepared = await prepare(p, operation.operationId, generated.body);
        let path = template;
        for (const [name, value] of Object.entries(prepared.params)) path = path.replace(`{${name}}`, encodeURIComponent(value));
        expect(path, `${operation.operationId}: a path id without a fixture`).not.toContain('{');
        const search = new URLSearchParams(generated.query.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]));
        const answer = await p.call(method, search.size === 0 ? path : `${path}?${search.toString()}`, prepared.body);
        const what = `${method} ${path} ${JSON.stringify(prepared.body)} -> ${answer.status} ${answer.text}`;
        if (prepared.status !== undefined) expect(answer.status, what).toBe(prepared.status);
        else expect(answer.status >= 200 && answer.status < 300, what).toBe(true);
        options.check(operation, answer.status, answer.text);
        (seen.get(operation.operationId) ?? seen.set(operation.operationId, []).get(operation.operationId))?.push(answer.status);
        if (answer.status < 300) await prepared.after?.(answer);
      }),
      { numRuns: options.runs, seed: options.seed, endOnFailure: true },
    );
  }
  // P leaves its world hostile: feed down, every limit 0, the shortest timings, every call of its
  // own faulted. The other tenant's suite answers exactly as before everything P did.
  await p.ok('POST', '/v1/test_helpers/price', { mid_rate: '0.01', spread_bps: 9_999, withdrawal_fee_usdt: '999', available: false });
  const zero = { daily: '0', monthly: '0' };
  await p.ok('POST', '/v1/test_helpers/limits', { platform: zero, partner: zero, user: zero });
  await p.ok('POST', '/v1/test_helpers/settings', { quote_ttl_seconds: 0.001, deposit_window_seconds: 0.001, settlement_delay_seconds: 0.001 });
  await p.ok('POST', '/v1/test_helpers/faults', { match: '* /**', fault: { type: 'error', code: 'internal_error' } });
  expect((await p.call('GET', '/v1/users')).status).toBe(500);
  expect(await scenario(s)).toEqual(before);
  return seen;
}
