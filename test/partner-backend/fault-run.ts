// The reference partner backend (examples/partner-backend) under faults, against the real sandbox
// server (`dist/cli.js serve`): 500 conversions driven to every final state, with commit-then-lose
// and 5xx on the backend's API calls, 5xx, dropped connections, concurrent copies and late replays
// on its webhook deliveries (the chaos proxy), retries arriving after later events, and a kill -9
// of the backend mid-run. Then: every event processed exactly once, one ledger entry per
// completed conversion, the mirror equal to the platform after reconciliation, and no request of
// the backend's refused (no 4xx in the server's log). The database is the run's (`faultRun`):
// PGlite in a folder (faults.test.ts) or a database of the run's real PostgreSQL server
// (faults-postgres.test.ts, through DATABASE_URL), read here once the backend has stopped.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Conversion, PixUsdt, type WebhookDelivery } from '../../src/index.js';
import { MIRROR_FIELDS } from '../../examples/partner-backend/src/mirror.js';
import { type Child, assertBuilt, serve, stopAll } from '../server/helpers.js';
import { EVP, WALLET, cpf } from '../support/fixtures.js';
import { ChaosProxy, unit } from './chaos-proxy.js';

/**
 * Conversions per run: 250 in `npm test`, where the run happens twice at once (PGlite and the
 * PostgreSQL server: 500 in all, as the single run had); `npm run test:partner-backend` runs 500 on each.
 */
const CONVERSIONS = Number(process.env['FAULT_RUN_CONVERSIONS'] ?? 250);
const BATCH = 50; // quotes per virtual minute stay under the reference's 60
const USERS = 20;
const CONCURRENCY = 8;
const MAIN = fileURLToPath(new URL('../../examples/partner-backend/src/main.ts', import.meta.url));

/** What the driver does with conversion `i` (the final state it should reach). */
type Plan =
  | 'onramp_paid' // funded, settled on the next minute: completed
  | 'onramp_settled' // paid and settled at once: completed
  | 'offramp_settled' // exact deposit, settled at once: completed
  | 'offramp_paid' // exact deposit, settled on the next minute: completed
  | 'offramp_under' // standby under_funded; the backend liquidates; settled: completed
  | 'offramp_over' // standby over_funded; the backend holds it: abandoned after 7 days
  | 'cancel' // cancelled through the backend: canceled
  | 'untouched' // nothing arrives: expired when the window passes
  | 'fail' // the fail helper: failed (compliance_rejected)
  | 'fail_pix' // exact deposit, then the Pix payout fails: failed (pix_send_failed)
  | 'onramp_under'; // Pix underpaid: standby; the backend liquidates the onramp: completed

const PLANS: Plan[] = ['onramp_paid', 'onramp_settled', 'offramp_settled', 'offramp_paid', 'offramp_under', 'offramp_over', 'cancel', 'untouched', 'fail', 'fail_pix', 'onramp_under'];
const FINAL: Record<Plan, string> = {
  onramp_paid: 'completed',
  onramp_settled: 'completed',
  offramp_settled: 'completed',
  offramp_paid: 'completed',
  offramp_under: 'completed',
  offramp_over: 'abandoned',
  cancel: 'canceled',
  untouched: 'expired',
  fail: 'failed',
  fail_pix: 'failed',
  onramp_under: 'completed',
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `work` over `items`, `limit` at a time. */
async function pool<T>(items: T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i] as T, i);
      }
    }),
  );
}

/** The backend's database in one fault run: how the backend is pointed at it, and how the checks read it. */
export interface FaultRunDatabase {
  /** For the test's title. */
  name: string;
  /** What the backend reports as its database (`pglite:<folder>` or `postgres`): proves which one it used. */
  kind: RegExp;
  /** The backend's environment for its database, given the run's scratch folder. */
  env(dataDir: string): Promise<Record<string, string>>;
  /** Opens the backend's database for the checks, once the backend has stopped. */
  open(dataDir: string): Promise<{ rows<T>(sql: string): Promise<T[]>; close(): Promise<void> }>;
}

/** Registers the fault run against `database` (hooks and one test). */
export function faultRun(database: FaultRunDatabase): void {
  let server: { child: Child; ready: { url: string; api_key: string } };
  let driver: PixUsdt;
  let proxy: ChaosProxy;
  let dataDir: string;
  let backend: { child: ChildProcess; url: string; stderr: string[]; expected: boolean } | null = null;
  let crashes = 0;
  let supervised: Promise<void> | null = null;
  const backendLog: string[] = [];
  let secret = '';
  let restarts = 0;
  let endpointId = '';
  let databaseEnv: Record<string, string> = {};
  const kinds: string[] = [];

  /**
   * Starts the backend (node + tsx, as `npm run` would) on the data folder; resolves once it
   * listens. Like a process supervisor, restarts it when it dies by itself (the crash it injects).
   */
  async function startBackend(crashAfterEvents?: number): Promise<void> {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
      env: {
        ...process.env,
        PIX_USDT_API_KEY: server.ready.api_key,
        PIX_USDT_BASE_URL: server.ready.url,
        PIX_USDT_WEBHOOK_SECRET: secret,
        ...databaseEnv,
        PORT: '0',
        RECONCILE_EVERY_SECONDS: '0',
        // A crashed handler's claim is taken over after 2 s (60 s by default), so the run need not wait.
        WEBHOOK_LEASE_SECONDS: '2',
        ...(crashAfterEvents === undefined ? {} : { CRASH_AFTER_EVENTS: String(crashAfterEvents) }),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const stderr: string[] = [];
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr.push(chunk);
      backendLog.push(chunk);
    });
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the backend did not start: ${stderr.join('')}`)), 120_000);
      createInterface({ input: child.stdout! }).once('line', (l) => {
        clearTimeout(timer);
        resolve(l);
      });
      child.once('exit', (code) => reject(new Error(`the backend exited (${code}): ${stderr.join('')}`)));
    });
    const { url, database: kind } = JSON.parse(line) as { url: string; database: string };
    kinds.push(kind);
    const running = { child, url, stderr, expected: false };
    backend = running;
    proxy.target = `${url}/webhooks/pix-usdt`;
    child.once('exit', () => {
      if (running.expected) return;
      crashes += 1;
      backend = null;
      supervised = startBackend();
    });
  }

  async function killBackend(signal: NodeJS.Signals): Promise<void> {
    const current = backend;
    if (current === null || current.child.exitCode !== null) return;
    current.expected = true;
    const exited = new Promise((r) => current.child.once('exit', r));
    current.child.kill(signal);
    await exited;
    backend = null;
  }

  /** A call to the backend's API, as the partner's app makes it: retried while the backend restarts. */
  async function call(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
    const deadline = Date.now() + 180_000;
    for (let attempt = 0; ; attempt++) {
      const base = backend?.url;
      if (base !== undefined) {
        try {
          const response = await fetch(`${base}${path}`, {
            method,
            headers: body === undefined ? {} : { 'content-type': 'application/json' },
            body: body === undefined ? null : JSON.stringify(body),
            signal: AbortSignal.timeout(60_000),
          });
          const json = (await response.json()) as Record<string, unknown>;
          if (response.ok) return json;
          // Our backend answers 5xx when the platform stayed unavailable through the client's retries.
          if (response.status < 500 || attempt >= 5) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
        } catch (error) {
          if ((error as Error).message.includes(' answered ')) throw error;
        }
      }
      if (Date.now() > deadline) throw new Error(`${method} ${path}: the backend stayed unreachable for 3 minutes`);
      await sleep(100);
    }
  }

  /** A sandbox route the client has no method for (fault plans); a reused idle connection the server closed is tried again. */
  async function control(method: string, path: string, body?: unknown): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await fetch(`${server.ready.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${server.ready.api_key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? null : JSON.stringify(body),
        });
        if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}`);
        return await response.json();
      } catch (error) {
        if (!(error instanceof TypeError) || attempt >= 2) throw error;
      }
    }
  }

  async function advance(seconds: number): Promise<void> {
    await driver.testHelpers.clock.advance({ seconds });
  }

  async function deliveries(status?: 'pending' | 'succeeded' | 'failed'): Promise<WebhookDelivery[]> {
    const all: WebhookDelivery[] = [];
    for await (const d of driver.webhookEndpoints.listDeliveries(endpointId, { limit: 100, ...(status ? { status } : {}) })) all.push(d);
    return all;
  }

  /** Waits until no delivery is pending (advancing the clock to fire retries), the proxy is idle, and the backend's standby queue is empty. */
  async function quiesce(): Promise<void> {
    for (let round = 0; round < 400; round++) {
      const pending = await deliveries('pending');
      const stats = (await call('GET', '/admin/stats')) as { standby: Array<{ status: string; n: number }> };
      const standbyPending = stats.standby.some((s) => s.status === 'pending' && s.n > 0);
      if (pending.length === 0 && !proxy.busy && !standbyPending) return;
      // Retries wait on the virtual clock (30 s, 2 min, 10 min...): move it when only they are left.
      if (pending.length > 0 && !proxy.busy && pending.every((d) => d.next_attempt_at !== null)) await advance(15 * 60);
      await sleep(100);
    }
    throw new Error('the run did not settle');
  }

  beforeAll(async () => {
    assertBuilt();
    dataDir = await mkdtemp(join(tmpdir(), 'pix-usdt-partner-backend-'));
    databaseEnv = await database.env(dataDir);
    server = await serve(['--seed', '24']);
    driver = new PixUsdt({ apiKey: server.ready.api_key, baseUrl: server.ready.url });
    proxy = new ChaosProxy();
    const endpoint = await driver.webhookEndpoints.create({ url: await proxy.listen(), event_types: ['*'], description: 'partner backend behind the chaos proxy' });
    secret = endpoint.secret;
    endpointId = endpoint.id;
    // The first process crashes in the middle of an event (after its writes, before its commit):
    // its 200th of 500 conversions' (about 1,450 events; 100th of 250), well before the kill -9 of
    // the middle batch, however late the deliveries run behind.
    await startBackend(Math.round(CONVERSIONS * 0.4));
  }, 180_000);

  afterAll(async () => {
    if (backend) await killBackend('SIGKILL');
    await proxy?.close();
    stopAll();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  describe(`the partner backend under faults, on ${database.name}`, () => {
    it(
      `processes every event exactly once for ${CONVERSIONS} conversions, keeps one ledger entry per completed conversion, and its mirror equals the platform`,
      async () => {
        const started = performance.now();
        const phases: Record<string, number> = {};
        let mark = started;
        const phase = (name: string): void => {
          const t = performance.now();
          phases[name] = Math.round(t - mark);
          mark = t;
        };
        // Faults on the backend's own API calls (the driver's test-helper calls match none).
        const plans = [
          { match: 'POST /v1/users', probability: 0.1, seed: 1, fault: { type: 'commit_then_lose' } },
          { match: 'POST /v1/quotes', probability: 0.08, seed: 2, fault: { type: 'commit_then_lose' } },
          { match: 'POST /v1/quotes/:id/accept', probability: 0.08, seed: 3, fault: { type: 'commit_then_lose' } },
          { match: 'POST /v1/conversions/:id/*', probability: 0.15, seed: 4, fault: { type: 'commit_then_lose' } },
          { match: 'POST /v1/quotes/:id/accept', probability: 0.04, seed: 5, fault: { type: 'error', code: 'internal_error' } },
          { match: 'GET /v1/conversions/:id', probability: 0.04, seed: 6, fault: { type: 'error', code: 'internal_error' } },
          { match: 'GET /v1/conversions', probability: 0.1, seed: 7, fault: { type: 'error', code: 'internal_error' } },
        ];
        for (const plan of plans) expect(await control('POST', '/v1/test_helpers/faults', plan)).toMatchObject({ match: plan.match, hits: 0 });

        // Users, created through the backend; KYC approved by the sandbox's helper.
        const users: Array<{ id: string; platform: string }> = [];
        await pool(
          Array.from({ length: USERS }, (_, i) => i),
          CONCURRENCY,
          async (i) => {
            const user = await call('POST', '/users', { external_id: `partner-user-${i}`, name: `Cliente ${i}`, document_number: cpf(i) });
            await driver.testHelpers.users.kyc(user['platform_user_id'] as string, { status: 'approved' });
            users[i] = { id: user['id'] as string, platform: user['platform_user_id'] as string };
          },
        );

        phase('users');
        const planned = new Map<string, Plan>();
        let reconcileMidRun: { checked: number; repairs: number } | null = null;
        for (let batch = 0; batch * BATCH < CONVERSIONS; batch++) {
          const indices = Array.from({ length: BATCH }, (_, k) => batch * BATCH + k);
          const created: Array<{ id: string; plan: Plan; expected: string }> = [];
          await pool(indices, CONCURRENCY, async (i) => {
            const plan = PLANS[i % PLANS.length] as Plan;
            const onramp = plan.startsWith('onramp') || (plan !== 'fail_pix' && unit(`dir:${i}`) < 0.5 && ['cancel', 'untouched', 'fail'].includes(plan));
            const user = users[i % USERS] as { id: string };
            const body = onramp
              ? { order_id: randomUUID(), user_id: user.id, direction: 'onramp', amount: (50 + (i % 150)).toFixed(2), wallet_address: WALLET }
              : { order_id: randomUUID(), user_id: user.id, direction: 'offramp', amount: (10 + (i % 30)).toFixed(2), pix_key: EVP, pix_key_type: 'evp' };
            const order = await call('POST', '/conversions', body);
            // Asking again with the same order id resumes the same order: no second conversion.
            if (i % 25 === 0) expect(((await call('POST', '/conversions', body))['conversion'] as { id: string }).id).toBe((order['conversion'] as { id: string }).id);
            const conversion = order['conversion'] as { id: string; expected_source_amount: string };
            planned.set(conversion.id, plan);
            created.push({ id: conversion.id, plan, expected: conversion.expected_source_amount });
          });
          phase(`batch ${batch} created`);
          // The backend restarts mid-run: kill -9 while this batch is driven (deliveries in flight),
          // then a reconciliation, as an operator would run after an outage.
          const restartAt = batch === Math.floor(CONVERSIONS / BATCH / 2) ? Math.floor(BATCH / 3) : -1;
          let driven = 0;
          let restart: Promise<void> | null = null;
          await pool(created, CONCURRENCY, async ({ id, plan, expected }) => {
            if (++driven === restartAt) {
              restart = (async () => {
                await killBackend('SIGKILL');
                restarts += 1;
                // On a loaded machine the first process may not have reached its crash point yet:
                // the injected crash then moves to the next process, so the run always has one.
                await startBackend(crashes === 0 ? Math.round(CONVERSIONS * 0.1) : undefined);
                reconcileMidRun = (await call('POST', '/admin/reconcile')) as { checked: number; repairs: number };
              })();
            }
            const conversions = driver.testHelpers.conversions;
            switch (plan) {
              case 'onramp_paid':
                await conversions.simulateOnrampPixPaid(id);
                break;
              case 'onramp_settled':
                await conversions.simulateOnrampPixPaid(id, { settle: true });
                break;
              case 'offramp_settled':
                await conversions.simulateOfframpDeposit(id, { settle: true });
                break;
              case 'offramp_paid':
                await conversions.simulateOfframpDeposit(id);
                break;
              case 'offramp_under':
                await conversions.simulateOfframpDeposit(id, { amount: new Big(expected).times('0.6').toFixed(6) });
                break;
              case 'offramp_over':
                await conversions.simulateOfframpDeposit(id, { amount: new Big(expected).times('1.5').toFixed(6) });
                break;
              case 'onramp_under':
                await conversions.simulateOnrampPixPaid(id, { amount: new Big(expected).times('0.5').toFixed(2) });
                break;
              case 'cancel':
                expect((await call('POST', `/conversions/${id}/cancel`))['status']).toBe('canceled');
                break;
              case 'fail':
                await conversions.fail(id, { reason: 'compliance_rejected' });
                break;
              case 'fail_pix':
                await conversions.simulateOfframpDeposit(id);
                await conversions.failPix(id);
                break;
              case 'untouched':
                break;
            }
          });
          await restart;
          await supervised;
          // The next minute: settlements fire, quotes may be asked again, 30 s retries are due.
          await advance(61);
          phase(`batch ${batch}`);
        }
        // Let the standby decisions and the retries finish, then the windows pass (expired), then 7 days (abandoned).
        await quiesce();
        phase('quiesce');
        await advance(16 * 60);
        await quiesce();
        await advance(7 * 24 * 3600 + 3600);
        await quiesce();
        const reconciled = (await call('POST', '/admin/reconcile')) as { checked: number; repairs: number };
        await quiesce();
        const stats = (await call('GET', '/admin/stats')) as { counters: Record<string, unknown>; cpu_seconds: number };
        const counters = stats.counters;
        const serverCpu = cpuSeconds(server.child.process.pid);
        await killBackend('SIGTERM');
        phase('end of run');

        // --- the platform's side --------------------------------------------------------------
        const platform = new Map<string, Conversion>();
        for await (const c of driver.conversions.list({ limit: 100 })) platform.set(c.id, c);
        expect(platform.size).toBe(CONVERSIONS);
        const byState: Record<string, number> = {};
        for (const [id, c] of platform) {
          byState[c.status] = (byState[c.status] ?? 0) + 1;
          expect(c.status, `${id} (${planned.get(id)})`).toBe(FINAL[planned.get(id) as Plan]);
        }
        expect(Object.keys(byState).sort()).toEqual(['abandoned', 'canceled', 'completed', 'expired', 'failed']);
        const all = await deliveries();
        expect(all.filter((d) => d.status !== 'succeeded')).toEqual([]);
        const delivered = new Set(all.map((d) => d.event_id));

        // --- the backend's database ------------------------------------------------------------
        // Every start of the backend used the database of this run.
        for (const kind of kinds) expect(kind).toMatch(database.kind);
        const db = await database.open(dataDir);
        try {
          const { rows } = db;
          const log = await rows<{ event_id: string; event_type: string; object_id: string; outcome: string }>('SELECT event_id, event_type, object_id, outcome FROM event_log ORDER BY processed_at');
          // Exactly once: every delivered event processed, none twice (event_log has no unique key).
          expect(log.length).toBe(new Set(log.map((r) => r.event_id)).size);
          expect(new Set(log.map((r) => r.event_id))).toEqual(delivered);
          // One ledger entry per completed conversion, for its amount: no double credit, none missing.
          const ledger = await rows<{ conversion_id: string; amount: string; currency: string }>('SELECT conversion_id, amount::text AS amount, currency FROM ledger_entries');
          const completed = [...platform.values()].filter((c) => c.status === 'completed');
          expect(ledger.length).toBe(completed.length);
          for (const c of completed) {
            const entry = ledger.find((e) => e.conversion_id === c.id);
            expect(entry && new Big(entry.amount).eq(c.target_amount) && entry.currency === c.target_currency, c.id).toBe(true);
          }
          // The mirror equals the platform, field by field.
          const mirror = await rows<Record<string, unknown>>('SELECT * FROM conversions');
          expect(mirror.length).toBe(CONVERSIONS);
          for (const row of mirror) {
            const c = platform.get(row['id'] as string) as unknown as Record<string, unknown>;
            for (const field of [...MIRROR_FIELDS, 'user_id'] as const) {
              const theirs = field === 'user_id' ? c['user_id'] : (c[field] ?? null);
              const ours = field === 'user_id' ? row['platform_user_id'] : row[field];
              expect(ours, `${row['id'] as string}.${field}`).toEqual(theirs);
            }
          }
          const receiver = (await rows<{ extra: number; events: number }>('SELECT count(*)::int AS events, coalesce(sum(attempts - 1), 0)::int AS extra FROM pix_usdt_webhook_events'))[0];
          const stale = log.filter((r) => r.outcome === 'stale').length;
          // Out of order: an event processed after a later event of the same conversion.
          const createdAt = new Map(all.map((d) => [d.event_id, d.created_at]));
          let reordered = 0;
          const latest = new Map<string, string>();
          for (const r of log) {
            const at = createdAt.get(r.event_id) as string;
            const seen = latest.get(r.object_id);
            if (seen !== undefined && at < seen) reordered += 1;
            if (seen === undefined || at > seen) latest.set(r.object_id, at);
          }

          phase('checks');
          // --- the server's log: nothing the backend sent was refused -------------------------
          const refused = server.child
            .stderr()
            .split('\n')
            .filter((line) => /^(GET|POST|PATCH|DELETE) \S+ 4\d\d /.test(line));
          expect(refused).toEqual([]);

          const faults = (await control('GET', '/v1/test_helpers/faults')) as { data: Array<{ match: string; hits: number; fault: { type: string; code?: string } }> };
          const attempts = all.reduce((n, d) => n + d.attempt_count, 0);
          const figures = {
            conversions: CONVERSIONS,
            final_states: byState,
            events: delivered.size,
            delivery_attempts: attempts,
            retries_by_the_platform: attempts - all.length,
            proxy_faults: proxy.figures.faults,
            late_replays: proxy.figures.lateReplays,
            backend_answers: proxy.figures.answers,
            duplicates_dropped: proxy.figures.answers['duplicate'] ?? 0,
            concurrent_copies_refused: proxy.figures.answers['in_progress'] ?? 0,
            events_claimed_again_after_a_crash_or_failure: receiver?.extra,
            processed_out_of_order: reordered,
            stale_snapshots_ignored: stale,
            api_faults_injected: Object.fromEntries(faults.data.map((f) => [`${f.match} ${f.fault.type === 'error' ? f.fault.code : f.fault.type}`, f.hits])),
            repairs: { mid_run: (reconcileMidRun as { repairs: number } | null)?.repairs, final: reconciled.repairs },
            ledger_entries: ledger.length,
            backend_counters_since_restart: counters,
            cpu_seconds: { sandbox_server: serverCpu, backend_since_restart: stats.cpu_seconds, test_process: Math.round(process.cpuUsage().user / 1e5) / 10 },
            backend_restarts: { killed: restarts, crashed_mid_event: crashes },
            seconds: Math.round((performance.now() - started) / 100) / 10,
            phases_ms: phases,
          };
          console.log(`partner backend under faults:\n${JSON.stringify(figures, null, 2)}`);
          // The faults really happened (so the equalities above mean something).
          expect(proxy.figures.answers['duplicate'] ?? 0).toBeGreaterThan(0);
          expect(attempts).toBeGreaterThan(all.length);
          expect(proxy.figures.lateReplays).toBeGreaterThan(0);
          expect(reordered).toBeGreaterThan(0);
          expect(faults.data.reduce((n, f) => n + f.hits, 0)).toBeGreaterThan(0);
          expect(restarts).toBe(1);
          expect(crashes).toBe(1);
          // The crashed handler's event was claimed again once its lease expired, and processed once.
          expect(receiver?.extra).toBeGreaterThan(0);
          expect(reconcileMidRun).not.toBeNull();
        } finally {
          await db.close();
        }
      },
      600_000,
    );
  });
}

/** CPU time of a process so far, in seconds (Linux's /proc; `null` elsewhere). */
function cpuSeconds(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return Math.round(((Number(fields[11]) + Number(fields[12])) / 100) * 10) / 10;
  } catch {
    return null;
  }
}
