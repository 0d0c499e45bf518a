/**
 * Issue 13, done when: the sandbox as a service. Against the built server (`dist/cli.js serve`)
 * with a partner's receiver in another process that verifies every delivery with `constructEvent`
 * at its default 300 s tolerance: tenants created over HTTP get their timers on time with no
 * request, and a multi-tenant scenario through 7-day clock advances has every delivery verified.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type Ready, assertBuilt, serve, stopAll } from '../helpers.js';
import { cpf, onrampBody } from '../../support/fixtures.js';

const WEBHOOKS = fileURLToPath(new URL('../../../dist/webhooks.js', import.meta.url));
const RECEIVER = fileURLToPath(new URL('../fixtures/receiver.mjs', import.meta.url));

interface Verdict {
  path: string;
  ok: boolean;
  id?: string;
  type?: string;
  reason?: string;
}

const receivers = new Set<ChildProcess>();
afterEach(() => {
  stopAll();
  for (const child of receivers) child.kill('SIGKILL');
  receivers.clear();
});

/** Starts the receiver process; resolves with its URL and a reader of its verdicts. */
async function startReceiver(): Promise<{ url: string; verdicts: () => Verdict[] }> {
  assertBuilt();
  const child = spawn(process.execPath, [RECEIVER, WEBHOOKS], { stdio: ['pipe', 'pipe', 'pipe'] });
  receivers.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const lines = (): Array<Record<string, unknown>> =>
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const port = await vi.waitFor(
    () => {
      const first = lines()[0];
      if (first === undefined) throw new Error(`The receiver is not listening yet. stderr: ${err}`);
      return first['port'] as number;
    },
    { timeout: 20_000, interval: 20 },
  );
  return { url: `http://127.0.0.1:${port}`, verdicts: () => lines().slice(1) as unknown as Verdict[] };
}

/** One tenant of the server, driven over HTTP with its own key. */
class Tenant {
  constructor(
    readonly base: string,
    readonly key: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' };
    if (method === 'POST') headers['idempotency-key'] = crypto.randomUUID();
    const response = await fetch(`${this.base}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const json = (await response.json()) as Record<string, unknown>;
    if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
    return json;
  }

  /** A user with approved KYC, and an onramp quote for it. */
  async quote(n: number, amount = '540.00'): Promise<Record<string, unknown>> {
    const user = await this.call('POST', '/v1/users', { external_id: `u${n}`, name: 'Ana Souza', document_type: 'cpf', document_number: cpf(n) });
    await this.call('POST', `/v1/test_helpers/users/${String(user['id'])}/kyc`, { status: 'approved' });
    return this.call('POST', '/v1/quotes', onrampBody(String(user['id']), amount));
  }

  /** An endpoint at the receiver for every event, its secret registered with the receiver. */
  async subscribe(receiver: string, name: string): Promise<string> {
    const path = `/hooks/${name}`;
    const endpoint = await this.call('POST', '/v1/webhook_endpoints', { url: `${receiver}${path}`, event_types: ['*'] });
    const answer = await fetch(`${receiver}/_secret`, { method: 'POST', body: JSON.stringify({ path, secret: endpoint['secret'] }) });
    expect(answer.status).toBe(204);
    return String(endpoint['id']);
  }

  async deliveries(endpointId: string): Promise<Array<Record<string, unknown>>> {
    const page = await this.call('GET', `/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`);
    return page['data'] as Array<Record<string, unknown>>;
  }
}

async function tenants(ready: Ready, count: number): Promise<Tenant[]> {
  const control = new Tenant(ready.url, ready.api_key);
  const out: Tenant[] = [];
  for (let i = 0; i < count; i++) {
    const created = await control.call('POST', '/v1/test_helpers/tenants', {});
    out.push(new Tenant(ready.url, String(created['api_key'])));
  }
  return out;
}

describe('the sandbox as a service', () => {
  it('timers of tenants created over HTTP fire on time with no request to them', async () => {
    const receiver = await startReceiver();
    // The flag is every tenant's default (a tenant's own settings would be its alone: issue 21).
    const { ready } = await serve(['--deposit-window', '1']);
    const all = await tenants(ready, 3);
    const expected: Array<{ path: string; conversion: string }> = [];
    for (const [i, tenant] of all.entries()) {
      await tenant.subscribe(receiver.url, `t${i}`);
      const quote = await tenant.quote(i + 1);
      const conversion = await tenant.call('POST', `/v1/quotes/${String(quote['id'])}/accept`, {});
      expected.push({ path: `/hooks/t${i}`, conversion: String(conversion['id']) });
    }
    // No request to any tenant from here on: the deposit windows pass, conversion.expired leaves.
    await vi.waitFor(
      () => {
        for (const { path } of expected) {
          expect(receiver.verdicts().filter((v) => v.path === path && v.type === 'conversion.expired'), path).toHaveLength(1);
        }
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(receiver.verdicts().filter((v) => !v.ok)).toEqual([]);
  });

  it('a multi-tenant scenario through 7-day advances: every delivery verified by a receiver in another process, none rejected', async () => {
    const receiver = await startReceiver();
    const { ready } = await serve();
    const endpoints: Array<{ tenant: Tenant; endpoint: string; path: string; quote: string; standby: string; unpaid: string }> = [];
    for (const [i, tenant] of (await tenants(ready, 2)).entries()) {
      const endpoint = await tenant.subscribe(receiver.url, `scenario${i}`);
      // A quote left alone (expires), a conversion paid short (standby, then abandoned after 7
      // days) and one never paid (its deposit window passes).
      const idle = await tenant.quote(10 * i + 1);
      const short = await tenant.call('POST', `/v1/quotes/${String((await tenant.quote(10 * i + 2))['id'])}/accept`, {});
      await tenant.call('POST', `/v1/test_helpers/conversions/${String(short['id'])}/simulate-onramp-pix-paid`, { amount: '1.00' });
      const unpaid = await tenant.call('POST', `/v1/quotes/${String((await tenant.quote(10 * i + 3))['id'])}/accept`, {});
      endpoints.push({ tenant, endpoint, path: `/hooks/scenario${i}`, quote: String(idle['id']), standby: String(short['id']), unpaid: String(unpaid['id']) });
    }
    for (const { tenant } of endpoints) {
      await tenant.call('POST', '/v1/test_helpers/clock/advance', { seconds: 86_400 });
      await tenant.call('POST', '/v1/test_helpers/clock/advance', { seconds: 6 * 86_400 + 1 });
    }
    for (const { tenant, endpoint, path, quote, standby, unpaid } of endpoints) {
      expect((await tenant.call('GET', `/v1/quotes/${quote}`))['status']).toBe('expired');
      expect((await tenant.call('GET', `/v1/conversions/${standby}`))['status']).toBe('abandoned');
      expect((await tenant.call('GET', `/v1/conversions/${unpaid}`))['status']).toBe('expired');
      // Every delivery of the tenant succeeded, and the receiver verified each one's event once.
      const deliveries = await vi.waitFor(
        async () => {
          const list = await tenant.deliveries(endpoint);
          expect(list.filter((d) => d['status'] !== 'succeeded')).toEqual([]);
          return list;
        },
        { timeout: 20_000, interval: 100 },
      );
      const verified = receiver.verdicts().filter((v) => v.path === path);
      expect(verified.filter((v) => !v.ok)).toEqual([]);
      expect(new Set(verified.map((v) => v.id))).toEqual(new Set(deliveries.map((d) => d['event_id'])));
      const types = verified.map((v) => v.type);
      for (const type of ['user.kyc_approved', 'conversion.created', 'conversion.standby', 'conversion.abandoned', 'conversion.expired']) expect(types, path).toContain(type);
    }
    expect(receiver.verdicts().filter((v) => !v.ok)).toEqual([]);
  });
});
