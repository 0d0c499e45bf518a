/**
 * A tiny raw-request helper for the sandbox's tests: sends a request through `sandbox.fetch` as
 * bytes (no client), and returns the status, headers and parsed body. The bodies it sends come
 * from test/support/fixtures.ts.
 */
import type { Sandbox } from '../../src/sandbox/index.js';
import { userBody } from '../support/fixtures.js';

export interface RawAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface RawOptions {
  apiKey?: string | null;
  idempotencyKey?: string | null;
  headers?: Record<string, string>;
  rawBody?: string;
}

let counter = 0;

export async function raw(sandbox: Sandbox, method: string, path: string, body?: unknown, options: RawOptions = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { ...options.headers };
  const apiKey = options.apiKey === undefined ? sandbox.apiKey : options.apiKey;
  if (apiKey !== null) headers['authorization'] = `Bearer ${apiKey}`;
  if (method !== 'GET' && options.idempotencyKey !== null) headers['idempotency-key'] = options.idempotencyKey ?? `test-${++counter}-${Math.random()}`;
  const init: RequestInit = { method, headers };
  if (options.rawBody !== undefined) init.body = options.rawBody;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await sandbox.fetch(`https://api.sandbox.test${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}


/** Creates user `n` (KYC pending) and approves it over raw requests; returns the user id. */
export async function approvedUser(sandbox: Sandbox, n = 1, apiKey?: string): Promise<string> {
  const o = apiKey === undefined ? {} : { apiKey };
  const user = await raw(sandbox, 'POST', '/v1/users', userBody(n), o);
  if (user.status !== 201) throw new Error(`user: ${JSON.stringify(user.body)}`);
  const kyc = await raw(sandbox, 'POST', `/v1/test_helpers/users/${user.body.id}/kyc`, { status: 'approved' }, o);
  if (kyc.status !== 200) throw new Error(`kyc: ${JSON.stringify(kyc.body)}`);
  return user.body.id as string;
}
