/**
 * The world a property run drives: a frozen, seeded sandbox, the public client of its default
 * tenant, a second tenant's client (for the isolation checks), and an observer that reads the
 * visible state through the public client after every step.
 */
import { PixUsdt, isApiError } from '../../src/index.js';
import { type Sandbox, createSandbox } from '../../src/sandbox/index.js';

export const T0 = Date.parse('2026-03-02T12:00:00.000Z');

/** What the client shows of the tenant at one instant. */
export interface Observation {
  users: Map<string, { kyc: string; deleted: boolean }>;
  quotes: Map<string, { status: string }>;
  conversions: Map<string, { status: string; direction: 'onramp' | 'offramp'; userId: string; received: string }>;
  transactions: Map<string, { status: string }>;
  balances: Map<string, { balance: string; available: string }>;
}

/** A mutation the client sent with an Idempotency-Key, and the answer it got (replayed at the end of a run). */
export interface Answered {
  url: string;
  init: RequestInit;
  status: number;
  text: string;
  /** The tenant's clock when it was answered (records are kept 24 hours). */
  at: number;
}

export interface World {
  sandbox: Sandbox;
  /** Mutations with a key that were answered (not 5xx or 429), in order, with the time of their answer. */
  answered: Answered[];
  /** JSON of every event of the default tenant, as emitted. */
  emitted: string[];
  client: PixUsdt;
  /** A client of a second tenant of the same sandbox. */
  other: PixUsdt;
  otherTenantId: string;
  observe(): Promise<Observation>;
}

export function createWorld(seed: number): World {
  const sandbox = createSandbox({ seed, now: T0, quoteRateLimit: 0 });
  const answered: Answered[] = [];
  const emitted: string[] = [];
  sandbox.on('event', (event, tenantId) => {
    if (tenantId === sandbox.tenantId) emitted.push(JSON.stringify(event));
  });
  // The client's calls, with the answers to its keyed mutations kept for the replay check.
  const recording: typeof sandbox.fetch = async (input, init) => {
    const response = await sandbox.fetch(input, init);
    const key = new Headers(init?.headers).get('idempotency-key');
    if (key !== null && init?.method !== undefined && init.method !== 'GET' && response.status < 500 && response.status !== 429) {
      answered.push({ url: String(input), init: { ...init, signal: null }, status: response.status, text: await response.clone().text(), at: sandbox.clock.now().getTime() });
    }
    return response;
  };
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: recording, maxRetries: 0, validation: 'strict' });
  const tenant = sandbox.createTenant();
  const other = new PixUsdt({ apiKey: tenant.apiKey, fetch: sandbox.fetch, maxRetries: 0, validation: 'strict' });
  return {
    sandbox,
    answered,
    emitted,
    client,
    other,
    otherTenantId: tenant.tenantId,
    async observe() {
      const o: Observation = { users: new Map(), quotes: new Map(), conversions: new Map(), transactions: new Map(), balances: new Map() };
      for await (const u of client.users.list({ limit: 100 })) o.users.set(u.id, { kyc: u.kyc_status, deleted: false });
      for await (const q of client.quotes.list({ limit: 100 })) o.quotes.set(q.id, { status: q.status });
      for await (const c of client.conversions.list({ limit: 100 })) {
        o.conversions.set(c.id, {
          status: c.status,
          direction: c.transaction_type === 'pix_onramp' ? 'onramp' : 'offramp',
          userId: c.user_id,
          received: c.received_amount,
        });
      }
      for await (const t of client.transactions.list({ limit: 100 })) o.transactions.set(t.id, { status: t.status });
      for (const id of o.users.keys()) {
        const w = await client.users.wallet(id);
        o.balances.set(id, { balance: w.balance, available: w.available_balance });
      }
      return o;
    },
  };
}

/** The one 5xx a run may provoke on purpose: the price feed switched off with `setPrice`. */
const EXPECTED_5XX = new Set(['price_feed_unavailable']);

/** Runs an operation that the platform may refuse; a refusal must be a 4xx API error (or the feed being off). */
export async function attempt<T>(op: () => Promise<T>): Promise<{ ok: true; value: T } | { ok: false; code: string; status: number }> {
  try {
    return { ok: true, value: await op() };
  } catch (error) {
    if (!isApiError(error)) throw error;
    if (error.status >= 500 && !EXPECTED_5XX.has(error.code)) throw new Error(`The sandbox answered ${error.status} ${error.code}: ${error.message}`);
    return { ok: false, code: error.code, status: error.status };
  }
}
