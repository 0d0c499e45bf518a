// Starts the partner backend from its environment:
//   PIX_USDT_API_KEY          the platform key (sk_test_... for a sandbox)
//   PIX_USDT_BASE_URL         the platform's URL (a `pix-usdt-sandbox serve`'s, say); default from the key
//   PIX_USDT_WEBHOOK_SECRET   the webhook endpoint's secret (several, comma-separated, during a rotation)
//   DATABASE_URL              a Postgres server; without it, PGlite in DATA_DIR (or in memory when unset)
//   PORT, HOST                where to listen (default 3000 on 127.0.0.1)
//   RECONCILE_EVERY_SECONDS   how often the reconciliation job runs (default 60; 0: only on POST /admin/reconcile)
//   CONFIRM_EVENTS            `false` to act on the webhook's snapshot without reading the resource back
//   WEBHOOK_LEASE_SECONDS     how long a delivery's claim holds before a retry may take over a crashed handler (default 30)
//   CRASH_AFTER_EVENTS        fault injection for tests: SIGKILL itself inside the Nth event's transaction
// Prints one JSON line on stdout once listening: {"url": "...", "database": "..."}.
import { buildApp } from './app.js';
import { createBackend } from './backend.js';
import { migrate, openDatabase } from './db.js';

export interface StartOptions {
  apiKey: string;
  baseUrl?: string | undefined;
  webhookSecrets: string[];
  databaseUrl?: string | undefined;
  dataDir?: string | undefined;
  port?: number;
  host?: string;
  reconcileEverySeconds?: number;
  confirm?: boolean;
  leaseSeconds?: number;
  crashAfterEvents?: number | undefined;
  log?: (line: string) => void;
}

/** Opens the database, builds the backend and listens; resolves with its URL and a `stop`. */
export async function start(options: StartOptions): Promise<{ url: string; database: string; stop: () => Promise<void> }> {
  const log = options.log ?? ((line: string) => console.error(`partner-backend: ${line}`));
  const database = await openDatabase({ databaseUrl: options.databaseUrl, dataDir: options.dataDir });
  await migrate(database.db);
  const backend = await createBackend(database, { apiKey: options.apiKey, baseUrl: options.baseUrl, webhookSecrets: options.webhookSecrets, confirm: options.confirm !== false, leaseMs: (options.leaseSeconds ?? 30) * 1000, ...(options.crashAfterEvents === undefined ? {} : { crashAfterEvents: options.crashAfterEvents }) }, log);
  const app = buildApp(backend);
  const url = await app.listen({ port: options.port ?? 3000, host: options.host ?? '127.0.0.1' });
  // Standby decisions left pending by a previous run (a crash between the event and the call),
  // and, every few seconds, any whose call failed for a reason that may pass.
  void backend.kick();
  const worker = setInterval(() => void backend.kick(), 5000);
  worker.unref();
  const every = options.reconcileEverySeconds ?? 60;
  const timer =
    every > 0
      ? setInterval(() => {
          backend.reconcile().then(
            (r) => r.repairs > 0 && log(`reconciliation: ${r.checked} checked, ${r.repairs} repaired`),
            (error: unknown) => log(`reconciliation failed: ${String((error as Error)?.message ?? error)}; next run in ${every} s`),
          );
        }, every * 1000)
      : null;
  timer?.unref();
  return {
    url,
    database: database.kind,
    stop: async () => {
      clearInterval(worker);
      if (timer) clearInterval(timer);
      await app.close();
      await backend.idle();
      await database.close();
    },
  };
}

function env(name: string): string | undefined {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
}

function required(name: string, hint: string): string {
  const value = env(name);
  if (value === undefined) {
    console.error(`partner-backend: ${name} is not set. ${hint}`);
    process.exit(2);
  }
  return value;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const running = await start({
    apiKey: required('PIX_USDT_API_KEY', 'Start a sandbox (npx pix-usdt-sandbox serve) and use the api_key it prints, or run `npm run example:partner-backend`, which starts one.'),
    baseUrl: env('PIX_USDT_BASE_URL'),
    webhookSecrets: required('PIX_USDT_WEBHOOK_SECRET', 'Run `npx pix-usdt-sandbox listen --forward-to http://127.0.0.1:3000/webhooks/pix-usdt` and use the secret it prints.').split(','),
    databaseUrl: env('DATABASE_URL'),
    dataDir: env('DATA_DIR'),
    port: Number(env('PORT') ?? 3000),
    host: env('HOST') ?? '127.0.0.1',
    reconcileEverySeconds: Number(env('RECONCILE_EVERY_SECONDS') ?? 60),
    confirm: env('CONFIRM_EVENTS') !== 'false',
    leaseSeconds: Number(env('WEBHOOK_LEASE_SECONDS') ?? 30),
    crashAfterEvents: env('CRASH_AFTER_EVENTS') === undefined ? undefined : Number(env('CRASH_AFTER_EVENTS')),
  });
  process.stdout.write(`${JSON.stringify({ url: running.url, database: running.database })}\n`);
  console.error(`partner-backend: listening on ${running.url} (database ${running.database}); webhooks at ${running.url}/webhooks/pix-usdt`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) process.exit(1);
    stopping = true;
    console.error(`partner-backend: ${signal}, stopping`);
    void running.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}
