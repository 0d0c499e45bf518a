/**
 * `workerd`: the Durable Objects deployment (`pix-usdt/durable-object`) run locally on workerd
 * from the project's own packages (the runner is run/workerd.ts, the work src/server/workerd/).
 * @module
 */
import { Option, type Command } from 'commander';
import { parseSettingFlags } from './serve-settings.js';
import type { CommandSpec } from './spec.js';
import { UsageError, parsePort, usage } from './usage.js';

/** The port the local deployment listens on by default (wrangler dev's, so that it does not take serve's). */
export const WORKERD_PORT = 8787;

/** Options of `pix-usdt-sandbox workerd`. */
export interface WorkerdOptions {
  /** Port on 127.0.0.1; 0 takes a free one. */
  port: number;
  /** Keep the deployment (bundle, configuration, the objects' storage, the first tenant) here across restarts; absent: a temporary folder removed at the stop. */
  data: string | undefined;
  /** The Worker module to bundle, relative to the project; `null`: the one-line Worker of `pix-usdt/durable-object`. */
  worker: string | null;
  /** The operator's token; absent: a new one each start. */
  controlToken: string | undefined;
  /** The Worker's variables (SETTLEMENT_DELAY_SECONDS...), from the flags. */
  vars: Record<string, string>;
  /** Progress and errors on stderr as JSON lines. */
  json: boolean;
}

function nonEmpty(raw: unknown, flag: string): string | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.trim() === '') throw new UsageError(`${flag} needs a value.`);
  return raw;
}

export const workerd: CommandSpec<'workerd', WorkerdOptions> = {
  kind: 'workerd',
  synopsis: 'workerd [--port N] [--data DIR] [--worker FILE] [--settlement-delay S] [--quote-ttl S] [--deposit-window S] [--quote-rate-limit N] [--json]',
  define(program: Command): Command {
    return program
      .command('workerd')
      .summary('run the Durable Objects deployment locally on workerd')
      .description(`Run the sandbox's Durable Objects deployment (pix-usdt/durable-object: one tenant per
object, docs/scale.md) on workerd, from this project: it bundles the Worker as wrangler does
(esbuild), writes the workerd configuration, starts workerd and makes a first tenant. It needs
workerd and esbuild in the project: npm install --save-dev workerd esbuild.

Once the Worker answers, prints exactly one JSON line on stdout:
  {"url":"http://127.0.0.1:8787","api_key":"sk_test_...","tenant_id":"...",
   "inspector_url":"...","control_key":"sk_control_...","pid":1234}
control_key is the operator's token (Authorization: Bearer <it>): it makes tenants
(POST /v1/test_helpers/tenants), lists them (GET /_sandbox/tenants), reads every tenant's
request log (logs tail --url URL --api-key <it>) and opens the inspector. pid is workerd's.
SIGINT and SIGTERM stop workerd and exit 0; it also stops with its parent process.

Exit codes: 0 stopped, 1 workerd failed or stopped on its own (the message says why; the
data folder is kept), 2 usage, 5 workerd or esbuild not installed.`)
      .option('--port <N>', `port on 127.0.0.1 (default ${WORKERD_PORT}; 0 takes a free port)`)
      .option('--data <DIR>', "keep the deployment in DIR across restarts (kill -9 included): the bundle, the configuration, every object's SQLite and the first tenant's key; created when missing. Without it, a temporary folder removed at the stop")
      .option('--worker <FILE>', "the Worker module to bundle (default: the one line export { default, TenantObject, Directory } from 'pix-usdt/durable-object')")
      .addOption(new Option('--control-token <TOKEN>', "the operator's token (default: a new sk_control_ token each start); prefer the variable, a flag shows in the process list").env('CONTROL_TOKEN'))
      .option('--quote-ttl <SECONDS>', 'how long a quote stays acceptable (default 30)')
      .option('--deposit-window <SECONDS>', 'how long an accepted conversion waits for its funds (default 1800)')
      .option('--settlement-delay <SECONDS>', 'how long a funded conversion takes to settle (default 60)')
      .option('--quote-rate-limit <N>', 'POST /v1/quotes a minute per API key (default 60; 0: no limit)')
      .option('--json', 'progress and errors on stderr as JSON lines (the ready line on stdout is JSON either way)');
  },
  parse(values) {
    const settings = usage(() =>
      parseSettingFlags({
        quoteTtl: values['quoteTtl'] as string | undefined,
        depositWindow: values['depositWindow'] as string | undefined,
        settlementDelay: values['settlementDelay'] as string | undefined,
        quoteRateLimit: values['quoteRateLimit'] as string | undefined,
      }),
    );
    const vars: Record<string, string> = {};
    if (settings.quoteTtlSeconds !== undefined) vars['QUOTE_TTL_SECONDS'] = String(settings.quoteTtlSeconds);
    if (settings.depositWindowSeconds !== undefined) vars['DEPOSIT_WINDOW_SECONDS'] = String(settings.depositWindowSeconds);
    if (settings.settlementDelaySeconds !== undefined) vars['SETTLEMENT_DELAY_SECONDS'] = String(settings.settlementDelaySeconds);
    if (settings.quoteRateLimit !== undefined) vars['QUOTE_RATE_LIMIT'] = String(settings.quoteRateLimit);
    const token = nonEmpty(values['controlToken'], '--control-token');
    if (token !== undefined && !/^[\x21-\x7e]{16,200}$/.test(token)) throw new UsageError('--control-token (or CONTROL_TOKEN) must be 16 to 200 printable characters without spaces (the token is not shown).');
    return {
      port: values['port'] === undefined ? WORKERD_PORT : parsePort(values['port'] as string),
      data: nonEmpty(values['data'], '--data'),
      worker: nonEmpty(values['worker'], '--worker') ?? null,
      controlToken: token,
      vars,
      json: values['json'] === true,
    };
  },
};
