/**
 * What the Worker and the tenant object share: the sandbox options from the Worker's variables,
 * the error envelope, the creation path.
 * @module
 */
import { type ErrorCode, ERROR_STATUS, type SandboxOptions, type WebhookTransport } from '../sandbox/index.js';
import { envelopeAnswer } from '../sandbox/http/call.js';
import { isLoopbackHost } from '../client/options.js';
import type { SandboxWorkerEnv } from './runtime.js';

/** The sandbox's tenant creation route. */
export const CREATE_PATH = '/v1/test_helpers/tenants';
/** The Worker asks a new object to make its tenant here. */
export const INTERNAL_CREATE = 'https://tenant.internal/_do/create';

/** An answer in the reference's error envelope, with a fresh request id. */
export function envelope(code: ErrorCode, message: string, details?: Record<string, unknown>): Response {
  const requestId = `req_${crypto.randomUUID().replaceAll('-', '')}`;
  const answer = envelopeAnswer({ status: ERROR_STATUS[code], code, message, details }, requestId);
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, 'x-request-id': requestId } });
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * Webhook deliveries with `fetch`, under the sandbox's destination rule: `https://`, or `http://`
 * to a loopback receiver. Private and metadata addresses are the runtime's to refuse (Cloudflare's
 * `fetch` never reaches them; workerd's `network` service names what it may reach).
 */
const fetchTransport: WebhookTransport = async ({ url, headers, body }) => {
  const target = new URL(url);
  if (target.protocol !== 'https:' && !(target.protocol === 'http:' && isLoopbackHost(target.hostname))) {
    throw new Error(`Refused: ${target.protocol}// is allowed only to a loopback receiver; use https://`);
  }
  const response = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  return { status: response.status, body: text.slice(0, 1_000) };
};

/** Every tenant's sandbox options, from the Worker's variables. */
export function sandboxOptions(env: SandboxWorkerEnv): SandboxOptions {
  const options: SandboxOptions = { environment: 'sandbox', webhookTransport: fetchTransport };
  const settlement = numberOf(env.SETTLEMENT_DELAY_SECONDS);
  const quoteTtl = numberOf(env.QUOTE_TTL_SECONDS);
  const depositWindow = numberOf(env.DEPOSIT_WINDOW_SECONDS);
  const rate = numberOf(env.QUOTE_RATE_LIMIT);
  if (settlement !== undefined) options.settlementDelaySeconds = settlement;
  if (quoteTtl !== undefined) options.quoteTtlSeconds = quoteTtl;
  if (depositWindow !== undefined) options.depositWindowSeconds = depositWindow;
  if (rate !== undefined) options.quoteRateLimit = rate;
  return options;
}
