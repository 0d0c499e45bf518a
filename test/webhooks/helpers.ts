import { createHmac } from 'node:crypto';
import type { CryptoEngine } from '../../src/webhooks/index.js';

export const SECRET = 'whsec_test_5f2b8c1d9e0a4b7c8d6e1f2a3b4c5d6e';
export const OTHER_SECRET = 'whsec_test_0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d';
export const NOW = 1_750_000_000; // unix seconds
export const NOW_MS = NOW * 1000;

/** Both HMAC paths: node:crypto (auto on Node) and WebCrypto (forced). */
export const ENGINES: CryptoEngine[] = ['auto', 'webcrypto'];

/** The expected signature, computed independently with node:crypto (not the code under test). */
export function independentHmac(body: string | Uint8Array, secret: string, t: number | string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.concat([Buffer.from(`${t}.`), Buffer.from(body)])).digest('hex');
}

/** A header made with the independent HMAC. */
export function independentHeader(body: string | Uint8Array, secrets: string[], t: number = NOW): string {
  return [`t=${t}`, ...secrets.map((s) => `v1=${independentHmac(body, s, t)}`)].join(',');
}

export const EVENT_ID = '3f6c2d1e-8a9b-4c7d-9e0f-1a2b3c4d5e6f';

/** A conversion.completed envelope as the platform sends it. */
export function conversionEvent(overrides: Record<string, unknown> = {}) {
  return {
    id: EVENT_ID,
    type: 'conversion.completed',
    created_at: '2025-06-15T15:06:40.000Z',
    data: {
      object: {
        id: '0c9b8a7d-6e5f-4a3b-8c2d-1e0f9a8b7c6d',
        user_id: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
        status: 'completed',
        expected_source_amount: '1000.00',
        received_amount: '1000.00',
        target_amount: '181.234567',
        note: 'ação, 💸', // non-ASCII: the HMAC is over UTF-8 bytes
      },
    },
    ...overrides,
  };
}

/** Catches the rejection of a promise, failing when it resolves. */
export async function rejection(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a rejection, but the promise resolved');
}
