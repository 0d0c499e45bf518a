/**
 * What the Worker, the operator's views and the tenant object share: the sandbox options from the
 * Worker's variables, the error envelope, the operator's token, the creation path and the one
 * reading of a creation's answer.
 * @module
 */
import { type ApiKeyRefusal, type ErrorCode, ERROR_STATUS, type SandboxOptions, type WebhookTransport } from '../sandbox/index.js';
import { envelopeAnswer } from '../sandbox/http/call.js';
import { RequestLog } from '../sandbox/http/request-log.js';
import { isLoopbackHost } from '../client/options.js';
import type { SandboxWorkerEnv } from './runtime.js';

/** The sandbox's tenant creation route. */
export const CREATE_PATH = '/v1/test_helpers/tenants';
/** The Worker asks a new object to make its tenant here. */
export const INTERNAL_CREATE = 'https://tenant.internal/_do/create';

/** An answer in the reference's error envelope, with a fresh request id (the status of the catalog's code, unless given). */
export function envelope(code: ErrorCode | 'method_not_allowed', message: string, details?: Record<string, unknown>, status: number = code === 'method_not_allowed' ? 405 : ERROR_STATUS[code]): Response {
  const requestId = `req_${crypto.randomUUID().replaceAll('-', '')}`;
  const answer = envelopeAnswer({ status, code, message, details }, requestId);
  return new Response(answer.body, { status: answer.status, headers: { ...answer.headers, 'x-request-id': requestId } });
}

/** The sandbox's own refusal of an API key (`readApiKey`, `API_KEY_REFUSALS`), in the envelope. */
export function refusal(refused: ApiKeyRefusal): Response {
  return envelope(refused.code, refused.message, undefined, refused.status);
}

/**
 * Whether an `Authorization` header carries the operator's token (`Bearer <CONTROL_TOKEN>`), read
 * by the request log's own rule for its control key (`RequestLog.readerOf`, compared without an
 * early exit). Never true without a token set: an empty secret opens nothing.
 */
export function isOperator(authorization: string | null, env: SandboxWorkerEnv): boolean {
  const token = env.CONTROL_TOKEN;
  if (token === undefined || token === '') return false;
  return RequestLog.readerOf(authorization, { controlKey: token, keyOwner: () => null }) !== null;
}

/** What a tenant creation answered, as the Worker and the new object read it. */
export interface CreatedTenant {
  /** The new tenant's id. */
  tenantId: string;
  /** The id of the key the answer names first (`null` when the answer names none). */
  keyId: string | null;
  /** The secrets of every key the answer holds (a fork's too), for the directory. */
  secrets: string[];
}

/**
 * Reads the 201 answer of `POST /v1/test_helpers/tenants`: the one place that knows its shape
 * (`api_key` the secret as printed, `api_keys` every key with its id and secret; docs/decisions.md,
 * issue 36).
 */
export function createdTenantOf(text: string): CreatedTenant {
  const made = JSON.parse(text) as { tenant_id: string; api_key: string; api_keys: Array<{ id: string; api_key: string }> };
  const keyId = made.api_keys.find((key) => key.api_key === made.api_key)?.id ?? null;
  return { tenantId: made.tenant_id, keyId, secrets: made.api_keys.map((key) => key.api_key) };
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
