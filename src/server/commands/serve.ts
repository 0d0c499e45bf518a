/**
 * `serve`: the sandbox as an HTTP(S) server (the runner is run/serve.ts). Its flags become the
 * server's options ({@link ServerOptions}, src/server/http/start.ts) here, once: the sandbox's
 * own options (`createSandbox`'s) among them, so that nothing downstream rebuilds them.
 * @module
 */
import { type Command, Option } from 'commander';
import type { SandboxOptions } from '../../sandbox/index.js';
import { isLoopbackHost } from '../../client/options.js';
import { parseAllowEntry } from '../egress/destinations.js';
import { parseCorsOrigin } from '../http/cors.js';
import type { ServerOptions } from '../http/start.js';
import { type RawSettingFlags, SETTING_FLAGS, parseSettingFlags } from './serve-settings.js';
import { RETENTION_FLAGS, type RawRetentionFlags, parseRetentionFlags } from './serve-retention.js';
import type { CommandSpec } from './spec.js';
import { DEFAULT_HOST, DEFAULT_PORT, UsageError, parseHost, parsePort, parseSeed, usage } from './usage.js';

/** Options of `pix-usdt-sandbox serve`: the server's, built from the flags once. */
export type ServeOptions = ServerOptions;

const collect = (value: string, previous: string[]): string[] => [...previous, value];

// Repeatable flags of the tables (each value adds one).
const REPEATABLE = new Set(['--limit <LEVEL.PERIOD=BRL>']);

/** `--max-tenants-per-root`: a whole number from 0 (issue 35). */
function parseTenantBound(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 1_000_000_000) {
    throw new UsageError(`--max-tenants-per-root must be a whole number from 0 to 1000000000, got ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

function parseData(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new UsageError('--data needs a folder path.');
  return raw;
}

/** The sandbox's options from the flags: environment, seed, the settings and retention flags, `--shared-platform-limits`. */
function sandboxOptions(values: Record<string, unknown>, environment: 'sandbox' | 'production'): Omit<SandboxOptions, 'webhookTransport'> {
  const seed = parseSeed(values['seed'] as string | undefined);
  // commander's camel-cased names are the parsers' raw names (strings; `limit` a list).
  const settings = usage(() => parseSettingFlags(values as RawSettingFlags));
  const retention = usage(() => parseRetentionFlags(values as RawRetentionFlags));
  const options: Omit<SandboxOptions, 'webhookTransport'> = { environment, ...(seed === undefined ? {} : { seed }), ...settings, ...retention };
  if (values['sharedPlatformLimits'] === true) options.limits = { ...options.limits, platformScope: 'shared' };
  const bound = parseTenantBound(values['maxTenantsPerRoot'] as string | undefined);
  if (bound !== undefined) options.maxTenantsPerRoot = bound;
  return options;
}

export const serve: CommandSpec<'serve', ServeOptions> = {
  kind: 'serve',
  synopsis: 'serve [--port N] [--host HOST] [--https [--cert FILE --key FILE]] [--seed N] [--environment ENV] [--insecure-webhooks] [--webhook-allow CIDR|HOST] [--cors-origin ORIGIN] [--shared-platform-limits] [--max-tenants-per-root N] [--data DIR] [--price BRL] [--quote-ttl S] [--deposit-window S] [--settlement-delay S] [--limit LEVEL.PERIOD=BRL] [--event-log-size N] [--delivery-log-size N] [--request-log-size N] [--idempotency-ttl S]',
  define(program: Command): Command {
    const command = program
      .command('serve')
      .summary('start the sandbox as an HTTP(S) server')
      .description(`Start the sandbox (the whole platform, in memory) as an HTTP(S) server.

Once listening, prints exactly one JSON line on stdout:
  {"url":"http://127.0.0.1:4010","api_key":"sk_test_...","tenant_id":"..."}
then logs one line per request on stderr (method, path, status, time, request id).
SIGINT and SIGTERM stop accepting connections, finish the requests in flight and exit 0.
It also stops when its parent process exits, or when its stdin is a pipe that closes.`)
      .option('--port <N>', `port to listen on (default ${DEFAULT_PORT}; 0 takes a free port)`)
      .option('--host <HOST>', `address to bind (default ${DEFAULT_HOST}). Plain HTTP is served on loopback hosts only (127.0.0.0/8, ::1, localhost); any other host needs --https`)
      .option('--https', 'serve HTTPS; without --cert/--key a self-signed certificate for localhost, 127.0.0.1 and ::1 is generated for the session')
      .option('--cert <FILE>', 'PEM certificate (chain) for --https (requires --key)')
      .option('--key <FILE>', 'PEM private key for --https (requires --cert)')
      .option('--seed <N>', 'integer seed: deterministic ids, API key and secrets')
      .addOption(new Option('--environment <ENV>', 'sandbox (default: sk_test_ keys, test helpers) or production (sk_live_ keys, test helpers answer 404)'))
      .option('--insecure-webhooks', 'accept unverifiable certificates of every webhook receiver (loopback receivers need no flag in the sandbox environment: http or self-signed https)')
      .option('--shared-platform-limits', "count every tenant's volume against one platform limit (default: each tenant is its own platform, so parallel suites never limit each other)")
      .option('--cors-origin <ORIGIN>', 'let pages of this origin call the server from a browser (repeatable; * for any). Origins on loopback hosts are always allowed', collect, [])
      .option('--webhook-allow <CIDR|HOST>', 'let deliveries reach this private, link-local or other internal range, address or host name (repeatable); they are refused otherwise', collect, [])
      .option('--max-tenants-per-root <N>', 'tenants that may be made over the API (POST /v1/test_helpers/tenants) from the default tenant, counting those made by the tenants it made, and so on (default 1000; 0: none)')
      .option('--data <DIR>', 'keep the whole state (tenants, keys, records, clocks, idempotency records, pending deliveries) in DIR across restarts, kill -9 included; created when missing. Without it nothing touches the disk');
    for (const [flags, description] of [...SETTING_FLAGS, ...RETENTION_FLAGS]) {
      if (REPEATABLE.has(flags)) command.option(flags, description, collect, []);
      else command.option(flags, description);
    }
    return command;
  },
  parse(values) {
    const environment = (values['environment'] as string | undefined) ?? 'sandbox';
    if (environment !== 'sandbox' && environment !== 'production') {
      throw new UsageError(`--environment must be sandbox or production, got ${JSON.stringify(environment)}.`);
    }
    const https = values['https'] === true;
    const cert = values['cert'] as string | undefined;
    const key = values['key'] as string | undefined;
    if ((cert === undefined) !== (key === undefined)) throw new UsageError('--cert and --key go together.');
    if (cert !== undefined && !https) throw new UsageError('--cert and --key need --https.');
    const host = parseHost(values['host'] as string | undefined);
    if (!https && !isLoopbackHost(host)) {
      throw new UsageError(`Plain HTTP is served on loopback hosts only (127.0.0.1, ::1, localhost); add --https to listen on ${host}.`);
    }
    const allow = values['webhookAllow'] as string[];
    for (const entry of allow) usage(() => parseAllowEntry(entry), '--webhook-allow ');
    const data = parseData(values['data'] as string | undefined);
    return {
      port: parsePort(values['port'] as string | undefined),
      host,
      ...(https ? { tls: cert !== undefined && key !== undefined ? { certFile: cert, keyFile: key } : ('self-signed' as const) } : {}),
      sandbox: sandboxOptions(values, environment),
      webhooks: { insecure: values['insecureWebhooks'] === true, allow },
      corsOrigins: (values['corsOrigin'] as string[]).map((origin) => usage(() => parseCorsOrigin(origin), '--cors-origin ')),
      ...(data === undefined ? {} : { data }),
    };
  },
};
