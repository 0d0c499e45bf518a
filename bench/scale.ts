// Scale (issue 6): one tenant holding 1,000,000 conversions.
// - Memory per stored conversion (target under 1.5 kB): heap before and after inserting the
//   records, after `global.gc()` (run node with --expose-gc), divided by the count.
// - List-with-filter latency (target: at 1,000,000 within 1.5x of at 1,000): the first page of
//   50 of `GET /v1/conversions?status=standby`, `?user_id=...` and both filters at once, through
//   the app's `handle` (what `sandbox.handle` calls), measured side by side.
//
// Creating a million conversions through HTTP would take minutes, so the records are inserted
// straight into the tenant's collection (src/sandbox/core/collection.ts), shaped as `acceptQuote`
// shapes them (src/sandbox/core/conversions.ts), each with its own id and amount strings.
// They get no timers and no limit reservations: neither is involved in listing.
import { Platform, type PlatformSettings } from '../src/sandbox/core/platform.js';
import { defaultSettings } from '../src/sandbox/core/settings.js';
import { App } from '../src/sandbox/http/app.js';
import { coreRoutes } from '../src/sandbox/http/routes/index.js';
import { tenantTransfer } from '../src/sandbox/core/transfer.js';
import type { ConversionRec, TenantState } from '../src/sandbox/core/state.js';
import { compare, table, type Figure } from './measure.js';

const STATUSES: ConversionRec['status'][] = ['completed', 'completed', 'completed', 'completed', 'completed', 'expired', 'canceled', 'standby', 'failed', 'awaiting_deposit'];
const USERS = 10;
// The platform with its HTTP app over the core routes, no plugin: what the listings go through.
class PlatformApp extends Platform {
  readonly #app = new App(this, { routes: coreRoutes(tenantTransfer(this)) });
  handle(request: Request): Promise<Response> {
    return this.#app.handle(request);
  }
}

const T0 = Date.parse('2026-03-02T12:00:00.000Z');

function platformApp(): { app: PlatformApp; tenant: TenantState; key: string } {
  const settings: PlatformSettings = {
    environment: 'sandbox',
    start: T0,
    seed: 'scale',
    idempotencyTtlMs: 86_400_000,
    eventLogSize: 10_000,
    quoteRateLimit: 0,
    maxTenantsPerRoot: 1_000,
  };
  const e = new PlatformApp(settings, defaultSettings({}, 'tenant'));
  const { tenant, key } = e.createTenant();
  e.defaultTenantId = tenant.id;
  return { app: e, tenant, key: key.secret };
}

function userIds(e: PlatformApp): string[] {
  return Array.from({ length: USERS }, () => e.random.uuid());
}

/** Inserts `count` conversions, spread over the users and statuses (1 in 10 standby). */
function fill(e: PlatformApp, tenant: TenantState, users: string[], count: number): void {
  for (let i = 0; i < count; i++) {
    const onramp = i % 2 === 0;
    const status = STATUSES[i % STATUSES.length] as ConversionRec['status'];
    const at = T0 - (count - i) * 1000;
    const amount = (100 + (i % 9973) / 100).toFixed(onramp ? 2 : 6);
    const rec: ConversionRec = {
      id: e.random.uuid(),
      seq: -1,
      userId: users[Math.floor(i / 7) % users.length] as string,
      quoteId: e.random.uuid(),
      liquidationQuoteId: null,
      direction: onramp ? 'onramp' : 'offramp',
      status,
      expected: amount,
      received: status === 'completed' || status === 'standby' ? amount : onramp ? '0.00' : '0.000000',
      targetAmount: (Number(amount) / 5.4).toFixed(onramp ? 6 : 2),
      windowExpiresAt: at + 900_000,
      standbyAt: status === 'standby' ? at + 60_000 : null,
      standbyReason: status === 'standby' ? 'under_funded' : null,
      pixAt: status === 'completed' ? at + 30_000 : null,
      usdtAt: status === 'completed' ? at + 90_000 : null,
      settleAt: null,
      completedAt: status === 'completed' ? at + 90_000 : null,
      failureReason: status === 'failed' ? 'pix_rejected' : null,
      createdAt: at,
      updatedAt: at + 90_000,
      reservedBrl: status === 'completed' ? (onramp ? amount : (Number(amount) * 5.4).toFixed(2)) : '0',
      reservedAt: at,
      transactionId: null,
    };
    tenant.conversions.insert(rec);
  }
}

function heapUsed(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

export interface ScaleFigures {
  count: number;
  bytesPerConversion: number | null;
  insertSeconds: number;
  lists: Array<{ filter: string; small: Figure; large: Figure; ratio: number }>;
}

/** Runs the benchmark and returns its figures. */
export async function run({ count = 1_000_000, small = 1_000 } = {}): Promise<ScaleFigures> {
  console.log(`\nScale: ${count.toLocaleString('en')} conversions in one tenant (inserted through the platform's internals, not HTTP)`);
  const hasGc = typeof (globalThis as { gc?: unknown }).gc === 'function';
  if (!hasGc) console.log('  (no global.gc: run node with --expose-gc for the memory figure)');

  const a = platformApp();
  const usersA = userIds(a.app);
  fill(a.app, a.tenant, usersA, small);

  const b = platformApp();
  const usersB = userIds(b.app);
  const before = heapUsed();
  const started = performance.now();
  fill(b.app, b.tenant, usersB, count);
  const insertSeconds = (performance.now() - started) / 1000;
  const after = heapUsed();
  const bytesPerConversion = hasGc ? (after - before) / count : null;
  console.log(`  inserted in ${insertSeconds.toFixed(1)} s; memory per stored conversion: ${bytesPerConversion === null ? 'n/a' : `${Math.round(bytesPerConversion)} bytes`} (target < 1,536)`);

  const get = (world: ReturnType<typeof platformApp>, query: string) => async () => {
    const response = await world.app.handle(new Request(`https://sandbox.pix-usdt.local/v1/conversions?${query}`, { headers: { authorization: `Bearer ${world.key}` } }));
    const body = (await response.json()) as { data: unknown[] };
    if (response.status !== 200 || body.data.length !== 50) throw new Error(`unexpected answer ${response.status} with ${body.data.length} items`);
  };
  const filters: Array<[string, (users: string[]) => string]> = [
    ['status=standby', () => 'status=standby&limit=50'],
    ['user_id=...', (users) => `user_id=${users[3] as string}&limit=50`],
    ['user_id=...&status=completed', (users) => `user_id=${users[3] as string}&status=completed&limit=50`],
  ];
  const lists: ScaleFigures['lists'] = [];
  for (const [name, query] of filters) {
    const [s, l] = await compare(
      [
        { name: `list ${name} at ${small.toLocaleString('en')}`, fn: get(a, query(usersA)) },
        { name: `list ${name} at ${count.toLocaleString('en')}`, fn: get(b, query(usersB)) },
      ],
      { rounds: 5, roundMs: 300, warmupMs: 200 },
    );
    table(`Scale: first page of 50, ${name}`, [s as Figure, l as Figure]);
    lists.push({ filter: name, small: s as Figure, large: l as Figure, ratio: (l as Figure).microsPerOp / (s as Figure).microsPerOp });
  }
  return { count, bytesPerConversion, insertSeconds, lists };
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
