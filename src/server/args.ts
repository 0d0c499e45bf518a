/**
 * Command-line arguments of `pix-usdt-sandbox`: parsed once with `node:util` parseArgs,
 * validated here, so the rest of the server only sees {@link ServeOptions}.
 * @module
 */
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { parseCorsOrigin } from './cors.js';
import { parseAllowEntry } from './destinations.js';

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
}

/** What the command line asks for. */
export type Command = { kind: 'help'; text: string } | { kind: 'version' } | { kind: 'serve'; options: ServeOptions };

/** A mistake on the command line: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';

export const HELP = `pix-usdt-sandbox: the pix-usdt sandbox (the whole platform, in memory) as an HTTP(S) server

Usage:
  pix-usdt-sandbox serve [options]
  pix-usdt-sandbox conformance --base-url URL --api-key KEY [options]   (see conformance --help)
  pix-usdt-sandbox --help | --version

Once listening, prints exactly one JSON line on stdout:
  {"url":"http://127.0.0.1:4010","api_key":"sk_test_...","tenant_id":"..."}
then logs one line per request on stderr (method, path, status, time, request id).
SIGINT and SIGTERM stop accepting connections, finish the requests in flight and exit 0.

Options of serve:
  --port N              port to listen on (default ${DEFAULT_PORT}; 0 takes a free port)
  --host HOST           address to bind (default ${DEFAULT_HOST}). Plain HTTP is served on loopback
                        hosts only (127.0.0.0/8, ::1, localhost); any other host needs --https
  --https               serve HTTPS; without --cert/--key a self-signed certificate for
                        localhost, 127.0.0.1 and ::1 is generated for the session
  --cert FILE           PEM certificate (chain) for --https (requires --key)
  --key FILE            PEM private key for --https (requires --cert)
  --seed N              integer seed: deterministic ids, API key and secrets
  --environment ENV     sandbox (default: sk_test_ keys, test helpers) or production
                        (sk_live_ keys, test helpers answer 404)
  --insecure-webhooks   accept unverifiable certificates of every webhook receiver (loopback
                        receivers need no flag in the sandbox environment: http or self-signed https)
  --shared-platform-limits
                        count every tenant's volume against one platform limit (default: each
                        tenant is its own platform, so parallel suites never limit each other)
  --cors-origin ORIGIN  let pages of this origin call the server from a browser (repeatable;
                        * for any). Origins on loopback hosts are always allowed
  --webhook-allow CIDR|HOST
                        let deliveries reach this private, link-local or other internal range,
                        address or host name (repeatable); they are refused otherwise
  -h, --help            show this help
  -v, --version         show the version
`;

const OPTIONS = {
  port: { type: 'string' },
  host: { type: 'string' },
  https: { type: 'boolean' },
  cert: { type: 'string' },
  key: { type: 'string' },
  seed: { type: 'string' },
  environment: { type: 'string' },
  'insecure-webhooks': { type: 'boolean' },
  'webhook-allow': { type: 'string', multiple: true },
  'cors-origin': { type: 'string', multiple: true },
  'shared-platform-limits': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

/** `localhost`, 127.0.0.0/8 and ::1 (with or without brackets). */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

function parseSeed(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(raw)) throw new UsageError(`--seed must be an integer, got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

function parseAllow(raw: string[] | undefined): string[] {
  const entries = raw ?? [];
  for (const entry of entries) {
    try {
      parseAllowEntry(entry);
    } catch (error) {
      throw new UsageError(`--webhook-allow ${(error as Error).message}`);
    }
  }
  return entries;
}

function parseCors(raw: string[] | undefined): string[] {
  return (raw ?? []).map((origin) => {
    try {
      return parseCorsOrigin(origin);
    } catch (error) {
      throw new UsageError(`--cors-origin ${(error as Error).message}`);
    }
  });
}

function parseHost(raw: string | undefined): string {
  if (raw === undefined) return DEFAULT_HOST;
  const host = raw.replace(/^\[(.*)\]$/, '$1');
  if (host === '' || !(isIP(host) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host))) {
    throw new UsageError(`--host must be an IP address or a host name, got ${JSON.stringify(raw)}.`);
  }
  return host;
}

/** Parses `argv` (without `node` and the script). Throws {@link UsageError} on any mistake. */
export function parseCommand(argv: readonly string[]): Command {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    // parseArgs' messages name the flag ("Unknown option '--prot'"); keep them, add the way out.
    throw new UsageError(`${(error as Error).message}. Run pix-usdt-sandbox --help.`);
  }
  const { values, positionals } = parsed;
  if (values.version === true) return { kind: 'version' };
  if (values.help === true || positionals.length === 0) {
    if (positionals.length > 1 || (positionals[0] !== undefined && positionals[0] !== 'serve')) {
      throw new UsageError(`Unknown command ${JSON.stringify(positionals.join(' '))}. Run pix-usdt-sandbox --help.`);
    }
    return { kind: 'help', text: HELP };
  }
  if (positionals.length > 1 || positionals[0] !== 'serve') {
    throw new UsageError(`Unknown command ${JSON.stringify(positionals.join(' '))}; the only command is serve. Run pix-usdt-sandbox --help.`);
  }
  const environment = values.environment ?? 'sandbox';
  if (environment !== 'sandbox' && environment !== 'production') {
    throw new UsageError(`--environment must be sandbox or production, got ${JSON.stringify(environment)}.`);
  }
  const https = values.https === true;
  if ((values.cert === undefined) !== (values.key === undefined)) throw new UsageError('--cert and --key go together.');
  if (values.cert !== undefined && !https) throw new UsageError('--cert and --key need --https.');
  const host = parseHost(values.host);
  if (!https && !isLoopback(host)) {
    throw new UsageError(`Plain HTTP is served on loopback hosts only (127.0.0.1, ::1, localhost); add --https to listen on ${host}.`);
  }
  return {
    kind: 'serve',
    options: {
      port: parsePort(values.port),
      host,
      https,
      cert: values.cert,
      key: values.key,
      seed: parseSeed(values.seed),
      environment,
      insecureWebhooks: values['insecure-webhooks'] === true,
      webhookAllow: parseAllow(values['webhook-allow']),
      corsOrigins: parseCors(values['cors-origin']),
      sharedPlatformLimits: values['shared-platform-limits'] === true,
    },
  };
}
