/**
 * Raw requests against a sandbox, for the fault tests: status, headers, parsed body.
 */
import type { Sandbox } from '../../../../src/sandbox/index.js';
import { cpf } from '../../../support/fixtures.js';
export { cpf };

export interface RawAnswer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

let counter = 0;

/** Sends one request through `sandbox.fetch`; rejects like `fetch` on a network fault. */
export async function raw(
  sandbox: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  options: { apiKey?: string; idempotencyKey?: string } = {},
): Promise<RawAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${options.apiKey ?? sandbox.apiKey}` };
  if (method !== 'GET') headers['idempotency-key'] = options.idempotencyKey ?? `fault-test-${++counter}`;
  const init: RequestInit = { method, headers };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    headers['content-type'] = 'application/json';
  }
  const response = await sandbox.fetch(`https://api.sandbox.test${path}`, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? null : JSON.parse(text) };
}


/** A create-user body. */
export const userBody = (n: number) => ({ external_id: `ext-${n}`, name: `User ${n}`, document_type: 'cpf' as const, document_number: cpf(n) });

/** The outcome of a promise: its value or its rejection. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
