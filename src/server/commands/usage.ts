/**
 * What every command's argument parsing shares: the usage error, option defaults and the
 * validators of values (ports, hosts, URLs, amounts). Pure: no I/O, no commander.
 * @module
 */
import { isIP } from 'node:net';

/** A mistake on the command line: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const DEFAULT_PORT = 4010;
export const DEFAULT_HOST = '127.0.0.1';
/** Where the client commands look for a server without `--url` or `PIX_USDT_SANDBOX_URL`. */
export const DEFAULT_URL = `http://${DEFAULT_HOST}:${DEFAULT_PORT}`;

export function parsePort(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65_535) throw new UsageError(`--port must be an integer from 0 to 65535, got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

export function parseSeed(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^-?\d{1,15}$/.test(raw)) throw new UsageError(`--seed must be an integer, got ${JSON.stringify(raw)}.`);
  return Number(raw);
}

export function parseHost(raw: string | undefined): string {
  if (raw === undefined) return DEFAULT_HOST;
  const host = raw.replace(/^\[(.*)\]$/, '$1');
  if (host === '' || !(isIP(host) !== 0 || /^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(host))) {
    throw new UsageError(`--host must be an IP address or a host name, got ${JSON.stringify(raw)}.`);
  }
  return host;
}

/** An absolute `http:` or `https:` URL without credentials; `flag` names it in the error. */
export function parseHttpUrl(raw: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`${flag} must be an absolute http:// or https:// URL, got ${JSON.stringify(raw)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag} must be an http:// or https:// URL, got ${JSON.stringify(raw)}.`);
  if (url.username !== '' || url.password !== '') throw new UsageError(`${flag} must not carry credentials.`);
  return url;
}

/** A positive decimal amount with at most 6 decimals, as a string (money is never a float). */
export function parseAmount(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,12}(\.\d{1,6})?$/.test(raw) || /^0+(\.0*)?$/.test(raw)) {
    throw new UsageError(`--amount must be a positive decimal such as 10.00, got ${JSON.stringify(raw)}.`);
  }
  return raw;
}

/**
 * Runs a parser of flag values that throws a plain error naming the flag (the serve flags'
 * parsers: serve-settings.ts, serve-retention.ts; the CORS and webhook-destination rules), and
 * turns its error into a usage error, `prefix` before the message.
 */
export function usage<T>(parse: () => T, prefix = ''): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(`${prefix}${(error as Error).message}`);
  }
}

/** `raw` if it is one of `allowed`, else a usage error listing them. */
export function oneOf<T extends string>(raw: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(raw)) throw new UsageError(`${flag} must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}.`);
  return raw as T;
}
