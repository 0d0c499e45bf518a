/**
 * `serve`: the sandbox as an HTTP(S) server (the runner is run/serve.ts).
 * @module
 */
import { type Command, Option } from 'commander';
import { parseCorsOrigin } from '../http/cors.js';
import { parseAllowEntry } from '../egress/destinations.js';
import { type SandboxSettingFlags, SETTING_FLAGS, parseSettingFlags } from './serve-settings.js';
import { RETENTION_FLAGS, type RetentionFlags, parseRetentionFlags } from './serve-retention.js';
import { DEFAULT_HOST, DEFAULT_PORT, UsageError, isLoopback, parseHost, parsePort, parseSeed } from './usage.js';
import type { CommandSpec } from './spec.js';
import { prose } from '../cli/help.js';

/** Options of `pix-usdt-sandbox serve`, after defaults and validation. */
export interface ServeOptions {
  port: number;
  host: string;
  https: boolean;
  cert: string | undefined;
  key: string | undefined;
  seed: number | undefined;
  environment: 'sandbox' | 'production';
  insecureWebhooks: boolean;
  /** `--webhook-allow`: internal ranges, addresses or host names webhook deliveries may go to. */
  webhookAllow?: string[];
  /** `--cors-origin`: browser origins allowed besides loopback ones (`*` for any). */
  corsOrigins?: string[];
  /** `--shared-platform-limits`: one platform usage across every tenant (default: each tenant is its own platform). */
  sharedPlatformLimits?: boolean;
  /** `--data DIR`: keep the whole state in this folder across restarts (default: memory only; src/server/data/store.ts). */
  data?: string | undefined;
  /** The price feed, limits and timings of `--price`, `--quote-ttl`, `--limit`... (../settings.ts). */
  settings?: SandboxSettingFlags;
  /** What is kept besides the records: `--event-log-size`, `--request-log-size`... (../retention.ts). */
  retention?: RetentionFlags;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

function parseAllow(entries: string[]): string[] {
  for (const entry of entries) {
    try {
      parseAllowEntry(entry);
    } catch (error) {
      throw new UsageError(`--webhook-allow ${(error as Error).message}`);
    }
  }
  return entries;
}

function settingFlags(values: Record<string, unknown>): SandboxSettingFlags {
  try {
    return parseSettingFlags({
      price: values['price'] as string | undefined,
      spreadBps: values['spreadBps'] as string | undefined,
      withdrawalFee: values['withdrawalFee'] as string | undefined,
      quoteTtl: values['quoteTtl'] as string | undefined,
      depositWindow: values['depositWindow'] as string | undefined,
      settlementDelay: values['settlementDelay'] as string | undefined,
      quoteRateLimit: values['quoteRateLimit'] as string | undefined,
      limit: values['limit'] as string[] | undefined,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function retentionFlags(values: Record<string, unknown>): RetentionFlags {
  try {
    return parseRetentionFlags({
      eventLogSize: values['eventLogSize'] as string | undefined,
      deliveryLogSize: values['deliveryLogSize'] as string | undefined,
      requestLogSize: values['requestLogSize'] as string | undefined,
      idempotencyTtl: values['idempotencyTtl'] as string | undefined,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

function parseCors(origins: string[]): string[] {
  return origins.map((origin) => {
    try {
      return parseCorsOrigin(origin);
    } catch (error) {
      throw new UsageError(`--cors-origin ${(error as Error).message}`);
    }
  });
}

function parseData(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (raw.trim() === '') throw new UsageError('--data needs a folder path.');
  return raw;
}

export const serve: CommandSpec<'serve', ServeOptions> = {
  kind: 'serve',
  synopsis: 'serve [--port N] [--host HOST] [--https [--cert FILE --key FILE]] [--seed N] [--environment ENV] [--insecure-webhooks] [--webhook-allow CIDR|HOST] [--cors-origin ORIGIN] [--shared-platform-limits] [--data DIR] [--price BRL] [--quote-ttl S] [--deposit-window S] [--settlement-delay S] [--limit LEVEL.PERIOD=BRL] [--event-log-size N] [--delivery-log-size N] [--request-log-size N] [--idempotency-ttl S]',
  define(program: Command): Command {
    return program
      .command('serve')
      .summary('start the sandbox as an HTTP(S) server')
      .description(
        prose(`Start the sandbox (the whole platform, in memory) as an HTTP(S) server.

Once listening, prints exactly one JSON line on stdout:
  {"url":"http://127.0.0.1:4010","api_key":"sk_test_...","tenant_id":"..."}
then logs one line per request on stderr (method, path, status, time, request id).
SIGINT and SIGTERM stop accepting connections, finish the requests in flight and exit 0.
It also stops when its parent process exits, or when its stdin is a pipe that closes.`),
      )
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
      .option('--data <DIR>', 'keep the whole state (tenants, keys, records, clocks, idempotency records, pending deliveries) in DIR across restarts, kill -9 included; created when missing. Without it nothing touches the disk')
      .option(SETTING_FLAGS[0][0], SETTING_FLAGS[0][1])
      .option(SETTING_FLAGS[1][0], SETTING_FLAGS[1][1])
      .option(SETTING_FLAGS[2][0], SETTING_FLAGS[2][1])
      .option(SETTING_FLAGS[3][0], SETTING_FLAGS[3][1])
      .option(SETTING_FLAGS[4][0], SETTING_FLAGS[4][1])
      .option(SETTING_FLAGS[5][0], SETTING_FLAGS[5][1])
      .option(SETTING_FLAGS[6][0], SETTING_FLAGS[6][1])
      .option(SETTING_FLAGS[7][0], SETTING_FLAGS[7][1], collect, [])
      .option(RETENTION_FLAGS[0][0], RETENTION_FLAGS[0][1])
      .option(RETENTION_FLAGS[1][0], RETENTION_FLAGS[1][1])
      .option(RETENTION_FLAGS[2][0], RETENTION_FLAGS[2][1])
      .option(RETENTION_FLAGS[3][0], RETENTION_FLAGS[3][1]);
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
    if (!https && !isLoopback(host)) {
      throw new UsageError(`Plain HTTP is served on loopback hosts only (127.0.0.1, ::1, localhost); add --https to listen on ${host}.`);
    }
    const settings = settingFlags(values);
    const retention = retentionFlags(values);
    return {
      port: parsePort(values['port'] as string | undefined),
      host,
      https,
      cert,
      key,
      seed: parseSeed(values['seed'] as string | undefined),
      environment,
      insecureWebhooks: values['insecureWebhooks'] === true,
      webhookAllow: parseAllow(values['webhookAllow'] as string[]),
      corsOrigins: parseCors(values['corsOrigin'] as string[]),
      sharedPlatformLimits: values['sharedPlatformLimits'] === true,
      data: parseData(values['data'] as string | undefined),
      ...(Object.keys(settings).length > 0 ? { settings } : {}),
      ...(Object.keys(retention).length > 0 ? { retention } : {}),
    };
  },
};
