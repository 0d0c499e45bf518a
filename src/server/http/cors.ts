/**
 * CORS for the sandbox server, so that a browser app in development (DESIGN.md) can call it from
 * another origin. Preflights are answered here, without authentication (a browser never sends
 * credentials on a preflight). Origins on loopback are allowed by default; others by
 * `--cors-origin`. Answers to allowed origins expose the headers the client reads.
 * @module
 */
import { isLoopbackHost } from '../../client/options.js';

/** The request headers the API reads. */
export const CORS_ALLOWED_HEADERS = ['Authorization', 'Idempotency-Key', 'Content-Type'] as const;
/** The response headers a page may read. */
export const CORS_EXPOSED_HEADERS = ['x-request-id', 'Idempotent-Replayed', 'Retry-After'] as const;
const ALLOWED_METHODS = 'GET, HEAD, POST, PATCH, DELETE';
const MAX_AGE_SECONDS = '600';

/** Normalizes a `--cors-origin` value (`https://app.example:8443`, or `*` for any). Throws a message otherwise. */
export function parseCorsOrigin(value: string): string {
  if (value === '*') return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${JSON.stringify(value)} is not an origin such as https://app.example:3000 (or * for any).`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin === 'null' || url.href.replace(/\/$/, '') !== url.origin) {
    throw new Error(`${JSON.stringify(value)} is not an origin such as https://app.example:3000: a scheme, a host and a port only.`);
  }
  return url.origin;
}

/** Which origins may call the server from a browser. */
export class CorsPolicy {
  readonly #origins: Set<string>;
  readonly #any: boolean;

  /** `origins`: allowed besides loopback ones (`--cors-origin`); `*` allows any. */
  constructor(origins: readonly string[] = []) {
    const parsed = origins.map(parseCorsOrigin);
    this.#any = parsed.includes('*');
    this.#origins = new Set(parsed);
  }

  /** Whether a page of `origin` (the `Origin` header) may read the answers. */
  allows(origin: string): boolean {
    if (this.#any || this.#origins.has(origin)) return true;
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      return false;
    }
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin && isLoopbackHost(url.hostname);
  }

  /** Headers added to every answer to a request with an allowed `Origin`. */
  responseHeaders(origin: string): Record<string, string> {
    return {
      'access-control-allow-origin': origin,
      'access-control-expose-headers': CORS_EXPOSED_HEADERS.join(', '),
      vary: 'Origin',
    };
  }

  /** Headers of the answer to an allowed preflight (`privateNetwork`: the page asked for Private Network Access). */
  preflightHeaders(origin: string, privateNetwork = false): Record<string, string> {
    return {
      ...(privateNetwork ? { 'access-control-allow-private-network': 'true' } : {}),
      'access-control-allow-origin': origin,
      'access-control-allow-methods': ALLOWED_METHODS,
      'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
      'access-control-max-age': MAX_AGE_SECONDS,
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
    };
  }
}

/** A CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(method: string, headers: { origin?: string | undefined; 'access-control-request-method'?: string | undefined }): boolean {
  return method === 'OPTIONS' && headers.origin !== undefined && headers['access-control-request-method'] !== undefined;
}
