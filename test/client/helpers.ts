/**
 * Shared test helpers: an msw server that records every request and answers from a queue,
 * a fake clock and sleep that record the waits, and fixtures of every resource.
 */
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { PixUsdt, type ClientOptions } from '../../src/index.js';

export const BASE = 'https://sandbox.pix-usdt.com';
export const API_KEY = 'sk_test_0123456789abcdefSECRETghijklmnop';

/** A request as the server saw it. */
export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

type Responder = (req: Seen) => Response | Promise<Response>;

const seen: Seen[] = [];
const queue: Responder[] = [];
let fallback: Responder | undefined;

export const server = setupServer(
  http.all('*', async ({ request }) => {
    const req: Seen = { method: request.method, url: new URL(request.url), headers: request.headers, body: await request.text() };
    seen.push(req);
    const next = queue.shift() ?? fallback;
    if (next === undefined) return HttpResponse.json({ code: 'no_mock', message: 'no answer queued', request_id: 'req_none' }, { status: 599 });
    return next(req);
  }),
);

/** Starts msw for the file and resets the queue between tests. */
export function useMockServer(): void {
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => {
    seen.length = 0;
    queue.length = 0;
    fallback = undefined;
  });
  afterAll(() => server.close());
}

/** Queues answers, in order. */
export function reply(...responders: Responder[]): void {
  queue.push(...responders);
}

/** Answers every request not queued. */
export function replyAlways(responder: Responder): void {
  fallback = responder;
}

/** The requests seen so far. */
export function requests(): Seen[] {
  return seen;
}

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Responder {
  return () => HttpResponse.json(body as Record<string, unknown>, { status, headers: { 'x-request-id': 'req_header', ...headers } });
}

/** An error envelope answer. */
export function apiError(status: number, code: string, extra: { details?: unknown; headers?: Record<string, string>; request_id?: string } = {}): Responder {
  return json(
    { code, message: `${code} happened`, request_id: extra.request_id ?? `req_${status}`, ...(extra.details === undefined ? {} : { details: extra.details }) },
    status,
    extra.headers,
  );
}

/** A network failure. */
export const networkError: Responder = () => HttpResponse.error();

/** A fake clock and a sleep that records its waits and moves the clock; no real waiting. */
export function fakeTime(start = Date.parse('2025-01-01T00:00:00Z')) {
  const state = { now: start, waits: [] as number[] };
  return {
    state,
    now: () => state.now,
    sleep: (ms: number, signal?: AbortSignal): Promise<void> => {
      if (signal?.aborted) return Promise.reject(signal.reason);
      state.waits.push(ms);
      state.now += ms;
      return Promise.resolve();
    },
  };
}

/** A client against msw with fake time. */
export function makeClient(options: Partial<ClientOptions> = {}) {
  const time = fakeTime();
  const client = new PixUsdt({ apiKey: API_KEY, sleep: time.sleep, now: time.now, ...options });
  return { client, time };
}

export const ID = '3f2a4b6c-8d9e-4f01-a234-56789abcdef0';
const T = '2025-01-01T00:00:00.000Z';

export const fixtures = {
  user: {
    id: ID,
    external_id: 'ext-1',
    name: 'Ana',
    email: 'ana@example.com',
    date_of_birth: null,
    user_type: 'individual',
    document_type: 'cpf',
    document_masked: '***.456.789-**',
    risk_profile: 'conservative',
    kyc_status: 'approved',
    kyc_approved_at: T,
    kyc_expires_at: null,
    custody_status: 'not_enrolled',
    custody_status_updated_at: null,
    metadata: {},
    created_at: T,
    updated_at: T,
  },
  wallet: { asset: 'USDT', balance: '10.5', available_balance: '10.5', network: 'polygon', wallet_id: ID, updated_at: T, stale: false },
  limitUpgrade: {
    id: ID,
    user_id: ID,
    status: 'pending',
    requested_daily_limit_brl: '1000',
    requested_monthly_limit_brl: null,
    reason: null,
    created_at: T,
  },
  quote: {
    id: ID,
    user_id: ID,
    source_amount: '100.00',
    source_currency: 'BRL',
    target_amount: '18.5',
    target_currency: 'USDT',
    exchange_rate: '5.40',
    spread_bps: 50,
    withdrawal_fee_usdt: '0.5',
    net_target_amount: '18.0',
    destination_wallet_address: '0x' + 'a'.repeat(40),
    destination_wallet_network: 'polygon',
    pix_key: null,
    pix_key_type: null,
    deposit_network: null,
    pix_holder_name: null,
    pix_holder_document_masked: null,
    pix_key_verified_at: null,
    status: 'active',
    expires_at: T,
    consumed_at: null,
    consumed_by_conversion_id: null,
    created_at: T,
  },
  conversion: {
    id: ID,
    user_id: ID,
    quote_id: ID,
    liquidation_quote_id: null,
    transaction_type: 'pix_onramp',
    status: 'awaiting_deposit',
    expected_source_amount: '100.00',
    received_amount: '0',
    source_currency: 'BRL',
    target_amount: '18.5',
    target_currency: 'USDT',
    deposit_window_expires_at: T,
    standby_at: null,
    standby_expires_at: null,
    standby_reason: null,
    deposit_address: null,
    deposit_address_network: null,
    pix_qr_code: 'qr',
    pix_tx_id: null,
    pix_e2e_id: null,
    usdt_tx_hash: null,
    completed_at: null,
    failure_reason: null,
    created_at: T,
    updated_at: T,
  },
  transaction: {
    id: ID,
    user_id: ID,
    quote_id: ID,
    type: 'pix_onramp',
    status: 'pending_payment',
    source_amount: '100.00',
    source_currency: 'BRL',
    target_amount: '18.5',
    target_currency: 'USDT',
    exchange_rate: '5.40',
    pix_qr_code: 'qr',
    pix_tx_id: null,
    pix_paid_at: null,
    destination_wallet_address: null,
    destination_wallet_network: null,
    usdt_tx_hash: null,
    usdt_sent_at: null,
    failure_reason: null,
    created_at: T,
    updated_at: T,
    completed_at: null,
  },
  apiKey: { id: ID, key_prefix: 'sk_test_abcd', capabilities: ['users:create'], name: 'default', created_at: T },
  endpoint: {
    id: ID,
    url: 'https://example.com/hooks',
    status: 'active',
    event_types: ['conversion.completed'],
    description: null,
    secret_prefix: 'whsec_',
    secret_last_four: 'abcd',
    created_at: T,
    updated_at: T,
  },
  delivery: {
    id: ID,
    webhook_endpoint_id: ID,
    event_id: ID,
    event_type: 'conversion.completed',
    status: 'succeeded',
    attempt_count: 1,
    response_status: 200,
    latency_ms: 12,
    last_error: null,
    next_attempt_at: null,
    attempts: [{ attempted_at: T, response_status: 200, latency_ms: 12, error: null }],
    created_at: T,
    updated_at: T,
  },
  kycView: { user_id: ID, kyc_status: 'approved', kyc_approved_at: T, kyc_expires_at: null, latest_submission: null },
  clock: { now: T },
};
