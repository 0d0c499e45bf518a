// The partner backend's operations over the platform and its database: users, orders (onramp
// and offramp conversions), the webhook handler, the standby worker and the reconciliation job.
// Every call to the platform carries an Idempotency-Key derived from our own ids, so a retry, a
// crash and a restart all replay instead of repeating.
import { type Conversion, PixUsdt, isApiError } from 'pix-usdt';
import type { WebhookEvent } from 'pix-usdt/webhooks';
import {
  type SqlClient,
  type SqlEventStore,
  type WebhookAnswer,
  type WebhookEventContext,
  createSqlEventStore,
  createWebhookHandler,
  isTerminalState,
} from 'pix-usdt/webhooks/receiver';
import { randomUUID } from 'node:crypto';
import { type Applied, applyConversion } from './mirror.js';
import type { Database } from './db.js';

/** What the backend needs to talk to the platform. */
export interface BackendConfig {
  apiKey: string;
  /** The platform's (or a sandbox server's) base URL. */
  baseUrl?: string | undefined;
  /** The webhook endpoint's signing secret(s). */
  webhookSecrets: string[];
  /** Read each event's resource back before acting on it (fetch-after-notify). Default true. */
  confirm?: boolean;
  /** How long a delivery's claim holds before a retry may take over (a crashed handler), in ms. */
  leaseMs?: number;
  /**
   * Fault injection for tests: the process kills itself (SIGKILL) in the middle of the Nth
   * event's transaction, after its writes and before its commit, as a crash would.
   */
  crashAfterEvents?: number;
}

/** Counters since start (the database holds the durable truth; these are for logs and /stats). */
export interface Counters {
  answers: Record<string, number>;
  applied: Record<Applied, number>;
  liquidations: number;
  liquidationRefusals: number;
  reconciliations: number;
  repairs: number;
}

export interface CreateUserInput {
  external_id: string;
  name: string;
  document_number: string;
  email?: string | undefined;
}

export interface CreateOrderInput {
  order_id: string;
  user_id: string;
  direction: 'onramp' | 'offramp';
  /** BRL for an onramp, USDT for an offramp (the amount the user sends). */
  amount: string;
  wallet_address?: string | undefined;
  pix_key?: string | undefined;
  pix_key_type?: 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp' | undefined;
}

/** A user as the backend answers it. */
export interface UserRow {
  id: string;
  external_id: string;
  platform_user_id: string | null;
  name: string;
  kyc_status: string | null;
}

/** The open states of a conversion: the ones the reconciliation job re-reads. */
const OPEN = ['awaiting_deposit', 'funded', 'standby', 'liquidated'] as const;

const now = (): string => new Date().toISOString();

/** The backend: build with {@link createBackend}. */
export type Backend = Awaited<ReturnType<typeof createBackend>>;

export async function createBackend(database: Database, config: BackendConfig, log: (line: string) => void = () => {}) {
  const { db } = database;
  const client = new PixUsdt({ apiKey: config.apiKey, baseUrl: config.baseUrl, timeoutMs: 10_000 });
  const store: SqlEventStore = createSqlEventStore({ db });
  const counters: Counters = {
    answers: {},
    applied: { inserted: 0, updated: 0, unchanged: 0, stale: 0 },
    liquidations: 0,
    liquidationRefusals: 0,
    reconciliations: 0,
    repairs: 0,
  };
  const count = (applied: Applied): Applied => {
    counters.applied[applied] += 1;
    return applied;
  };

  async function apply(conversion: Conversion, writer: 'api' | 'reconcile'): Promise<Applied> {
    return count(await store.transaction((tx) => applyConversion(tx, conversion, writer)));
  }

  // --- webhooks ---------------------------------------------------------------------------

  let handled = 0;

  async function onEvent(event: WebhookEvent, { tx, resource, attempt }: WebhookEventContext<SqlClient>): Promise<void> {
    const object = (resource ?? event.data.object) as Record<string, unknown>;
    let outcome: string = 'ignored';
    if (event.type.startsWith('conversion.') || event.type === 'transaction.sending_pix') {
      outcome = count(await applyConversion(tx, object as unknown as Conversion, 'webhook'));
    } else if (event.type.startsWith('user.kyc_')) {
      const changed = await tx.query(
        'UPDATE users SET kyc_status = $2, kyc_updated_at = $3 WHERE platform_user_id = $1 AND (kyc_updated_at IS NULL OR kyc_updated_at < $3)',
        [object['id'], object['kyc_status'], object['updated_at']],
      );
      outcome = (changed.rowCount ?? changed.affectedRows ?? 0) > 0 ? 'updated' : 'unchanged';
    }
    await tx.query('INSERT INTO event_log (event_id, event_type, object_id, outcome, attempt, processed_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      event.id,
      event.type,
      typeof object['id'] === 'string' ? object['id'] : null,
      outcome,
      attempt,
      now(),
    ]);
    if (++handled === config.crashAfterEvents) process.kill(process.pid, 'SIGKILL');
  }

  const webhookHandler = createWebhookHandler({
    secrets: config.webhookSecrets,
    store,
    confirm: config.confirm !== false,
    client,
    ...(config.leaseMs === undefined ? {} : { leaseMs: config.leaseMs }),
    onEvent,
    onAnswer: (answer: WebhookAnswer) => {
      counters.answers[answer.outcome] = (counters.answers[answer.outcome] ?? 0) + 1;
      // Committed: the standby decision it queued is visible to the worker now.
      if (answer.outcome === 'processed' && answer.eventType === 'conversion.standby') void kick();
    },
    onError: (error: unknown, answer: WebhookAnswer) => log(`webhook ${answer.eventType ?? '?'} ${answer.eventId ?? '?'}: ${answer.outcome}: ${String((error as Error)?.message ?? error)}`),
  });

  // --- users and orders -------------------------------------------------------------------

  async function createUser(input: CreateUserInput): Promise<UserRow> {
    // Ours first, keyed by the caller's external id: asking again resumes the same user.
    await db.query('INSERT INTO users (id, external_id, name, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (external_id) DO NOTHING', [
      randomUUID(),
      input.external_id,
      input.name,
      now(),
    ]);
    const row = (await db.query('SELECT * FROM users WHERE external_id = $1', [input.external_id])).rows[0] as UserRow;
    if (row.platform_user_id !== null) return row;
    const user = await client.users.create(
      { external_id: input.external_id, name: input.name, document_type: 'cpf', document_number: input.document_number, ...(input.email ? { email: input.email } : {}) },
      { idempotencyKey: `user-${row.id}` },
    );
    await db.query('UPDATE users SET platform_user_id = $2, kyc_status = COALESCE(kyc_status, $3) WHERE id = $1', [row.id, user.id, user.kyc_status]);
    return { ...row, platform_user_id: user.id, kyc_status: row.kyc_status ?? user.kyc_status };
  }

  async function getUser(id: string): Promise<UserRow | undefined> {
    return (await db.query('SELECT id, external_id, platform_user_id, name, kyc_status FROM users WHERE id = $1', [id])).rows[0] as UserRow | undefined;
  }

  async function createOrder(input: CreateOrderInput): Promise<{ order_id: string; conversion: Record<string, unknown> }> {
    const user = await getUser(input.user_id);
    if (user?.platform_user_id == null) throw Object.assign(new Error('Unknown user, or not yet created on the platform'), { statusCode: 404 });
    await db.query('INSERT INTO orders (order_id, user_id, direction, request, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (order_id) DO NOTHING', [
      input.order_id,
      input.user_id,
      input.direction,
      JSON.stringify(input),
      now(),
    ]);
    const order = (await db.query('SELECT conversion_id, request FROM orders WHERE order_id = $1', [input.order_id])).rows[0] as { conversion_id: string | null; request: string };
    if (order.conversion_id === null) {
      // The first request's body, whatever a repeat sends: an order is one conversion.
      const asked = JSON.parse(order.request) as CreateOrderInput;
      const body =
        asked.direction === 'onramp'
          ? {
              user_id: user.platform_user_id,
              source_currency: 'BRL' as const,
              target_currency: 'USDT' as const,
              source_amount: asked.amount,
              destination_wallet_address: asked.wallet_address ?? '',
              destination_wallet_network: 'polygon' as const,
            }
          : {
              user_id: user.platform_user_id,
              source_currency: 'USDT' as const,
              target_currency: 'BRL' as const,
              source_amount: asked.amount,
              pix_key: asked.pix_key ?? '',
              pix_key_type: asked.pix_key_type ?? 'evp',
              deposit_network: 'polygon' as const,
            };
      const quote = await client.quotes.create(body, { idempotencyKey: `quote-${input.order_id}` });
      const conversion = await client.quotes.accept(quote.id, {}, { idempotencyKey: `accept-${input.order_id}` });
      await store.transaction(async (tx) => {
        count(await applyConversion(tx, conversion, 'api'));
        await tx.query('UPDATE orders SET conversion_id = $2 WHERE order_id = $1', [input.order_id, conversion.id]);
      });
      order.conversion_id = conversion.id;
    }
    return { order_id: input.order_id, conversion: (await getConversion(order.conversion_id)) as Record<string, unknown> };
  }

  async function getConversion(id: string): Promise<Record<string, unknown> | undefined> {
    return (await db.query('SELECT * FROM conversions WHERE id = $1', [id])).rows[0] as Record<string, unknown> | undefined;
  }

  async function listConversions(status?: string): Promise<Array<Record<string, unknown>>> {
    const result = status === undefined ? await db.query('SELECT * FROM conversions ORDER BY created_at, id') : await db.query('SELECT * FROM conversions WHERE status = $1 ORDER BY created_at, id', [status]);
    return result.rows as Array<Record<string, unknown>>;
  }

  /** Cancels a conversion still awaiting its deposit: read back first, so a paid one is not cancelled on a stale mirror. */
  async function cancel(id: string): Promise<Record<string, unknown> | undefined> {
    const current = await client.conversions.retrieve(id);
    await apply(current, 'api');
    if (current.status === 'awaiting_deposit') await apply(await client.conversions.cancel(id, { idempotencyKey: `cancel-${id}` }), 'api');
    return getConversion(id);
  }

  async function listLedger(): Promise<Array<Record<string, unknown>>> {
    return (await db.query('SELECT conversion_id, user_id, kind, currency, amount::text AS amount, written_by, created_at FROM ledger_entries ORDER BY created_at, conversion_id')).rows as Array<Record<string, unknown>>;
  }

  // --- standby ----------------------------------------------------------------------------

  let working: Promise<void> | null = null;
  let again = false;

  /** Runs the standby decisions waiting in the queue; a second call while running runs once more after. */
  function kick(): Promise<void> {
    if (working !== null) {
      again = true;
      return working;
    }
    working = (async () => {
      do {
        again = false;
        await processStandby();
      } while (again);
    })()
      .catch((error: unknown) => log(`standby worker: ${String((error as Error)?.message ?? error)}`))
      .finally(() => {
        working = null;
      });
    return working;
  }

  async function processStandby(): Promise<void> {
    const pending = (await db.query("SELECT conversion_id FROM standby_actions WHERE status = 'pending' AND decision = 'liquidate' ORDER BY created_at LIMIT 50")).rows as Array<{ conversion_id: string }>;
    for (const { conversion_id: id } of pending) {
      try {
        const liquidated = await client.conversions.liquidate(id, { idempotencyKey: `liquidate-${id}` });
        await store.transaction(async (tx) => {
          count(await applyConversion(tx, liquidated, 'api'));
          await tx.query("UPDATE standby_actions SET status = 'done', updated_at = $2 WHERE conversion_id = $1", [id, now()]);
        });
        counters.liquidations += 1;
      } catch (error) {
        // A refusal (4xx) will not change by retrying: record it. Anything else stays pending.
        if (isApiError(error) && error.status < 500 && error.status !== 429) {
          counters.liquidationRefusals += 1;
          await db.query("UPDATE standby_actions SET status = 'refused', error = $2, updated_at = $3 WHERE conversion_id = $1", [id, error.code, now()]);
        } else {
          log(`liquidate ${id}: ${String((error as Error)?.message ?? error)}; will retry`);
          return;
        }
      }
    }
  }

  // --- reconciliation ---------------------------------------------------------------------

  /**
   * Repairs the mirror from the platform. The listing has no "changed since" filter, so the
   * cursor is the newest conversion seen: the job lists newest first down to it (conversions the
   * mirror may lack: an answer lost with a crash), and re-reads every conversion the mirror holds
   * open (a terminal state never changes). Each snapshot goes through the same `applyConversion`
   * as webhooks, in its own transaction, and never moves the mirror backwards.
   */
  async function reconcile(): Promise<{ checked: number; repairs: number; cursor: string | null }> {
    const state = (await db.query("SELECT cursor_created_at FROM reconcile_state WHERE name = 'conversions'")).rows[0] as { cursor_created_at: string | null } | undefined;
    const cursor = state?.cursor_created_at ?? null;
    const seen = new Map<string, Conversion>();
    let newest = cursor;
    for await (const c of client.conversions.list({ limit: 100 })) {
      // Same instant as the cursor: looked at again (harmless); older: every one before is known.
      if (cursor !== null && c.created_at < cursor) break;
      if (newest === null || c.created_at > newest) newest = c.created_at;
      seen.set(c.id, c);
    }
    for (const status of OPEN) for await (const c of client.conversions.list({ status, limit: 100 })) seen.set(c.id, c);
    const open = (await db.query(`SELECT id FROM conversions WHERE status IN (${OPEN.map((_, i) => `$${i + 1}`).join(', ')})`, [...OPEN])).rows as Array<{ id: string }>;
    // Open in the mirror, open nowhere on the platform any more: it moved on; read it.
    for (const { id } of open) if (!seen.has(id)) seen.set(id, await client.conversions.retrieve(id));
    let repairs = 0;
    for (const c of seen.values()) {
      const applied = await apply(c, 'reconcile');
      if (applied === 'inserted' || applied === 'updated') repairs += 1;
    }
    await db.query(
      `INSERT INTO reconcile_state (name, cursor_created_at, runs, repairs, updated_at) VALUES ('conversions', $1, 1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET cursor_created_at = EXCLUDED.cursor_created_at, runs = reconcile_state.runs + 1, repairs = reconcile_state.repairs + EXCLUDED.repairs, updated_at = EXCLUDED.updated_at`,
      [newest, repairs, now()],
    );
    counters.reconciliations += 1;
    counters.repairs += repairs;
    if (repairs > 0) void kick();
    return { checked: seen.size, repairs, cursor: newest };
  }

  // --- figures ----------------------------------------------------------------------------

  async function stats(): Promise<Record<string, unknown>> {
    const one = async (sql: string): Promise<Record<string, unknown>> => (await db.query(sql)).rows[0] as Record<string, unknown>;
    const cpu = process.cpuUsage();
    return {
      counters,
      cpu_seconds: Math.round((cpu.user + cpu.system) / 1e5) / 10,
      events: await one(`SELECT count(*)::int AS processed, count(DISTINCT event_id)::int AS distinct_events, coalesce(sum(CASE WHEN attempt > 1 THEN 1 ELSE 0 END), 0)::int AS retried FROM event_log`),
      receiver: await one(`SELECT count(*)::int AS events, coalesce(sum(attempts - 1), 0)::int AS extra_claims FROM ${store.table}`),
      ledger: await one('SELECT count(*)::int AS entries FROM ledger_entries'),
      standby: (await db.query('SELECT decision, status, count(*)::int AS n FROM standby_actions GROUP BY decision, status ORDER BY decision, status')).rows,
      reconcile: (await db.query("SELECT runs, repairs, cursor_created_at FROM reconcile_state WHERE name = 'conversions'")).rows[0] ?? null,
    };
  }

  return {
    client,
    store,
    counters,
    webhookHandler,
    createUser,
    getUser,
    createOrder,
    getConversion,
    listConversions,
    listLedger,
    cancel,
    kick,
    reconcile,
    stats,
    isTerminal: (status: string) => isTerminalState('conversion', status),
    /** Waits for the standby worker to be idle. */
    idle: async () => {
      while (working !== null) await working;
    },
  };
}
