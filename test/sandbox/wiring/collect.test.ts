/**
 * Issue 21: a sandbox nobody references is garbage-collected with its timers. Real-time
 * sandboxes, each with an accepted conversion (its 15-minute deposit window armed on the
 * platform's real timer), are dropped; after full collections every one is gone. With a timer
 * callback that closed over the platform, none was (the timer kept it until its due instant).
 * Deterministic: a full `gc()` collects what is unreachable; no duration is measured.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { PixUsdt } from '../../../src/index.js';
import { createSandbox } from '../../../src/sandbox/index.js';
import { onrampBody, cpf } from '../../support/fixtures.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;


/** A real-time sandbox with one accepted conversion (and an endpoint with a pending retry), seen only through weak references. */
async function dropped(n: number, close: boolean, seen: Array<WeakRef<object>>): Promise<void> {
  const sandbox = createSandbox();
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  await client.webhookEndpoints.create({ url: 'https://partner.example/hooks', event_types: ['conversion.created'] });
  const user = await client.users.create({ external_id: `g-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) });
  await client.testHelpers.users.kyc(user.id, { status: 'approved' });
  const quote = await client.quotes.create(onrampBody(user.id, '100.00'));
  const conversion = await client.quotes.accept(quote.id);
  expect(conversion.status).toBe('awaiting_deposit');
  // Nobody listens at the endpoint: the first attempt fails and a retry is armed.
  await sandbox.webhooks.flush();
  expect(sandbox.webhooks.pending()).toHaveLength(1);
  if (close) await sandbox.close();
  seen.push(new WeakRef(sandbox), new WeakRef(client));
}

async function collectAll(seen: Array<WeakRef<object>>, rounds = 10): Promise<number> {
  for (let round = 0; round < rounds && seen.some((ref) => ref.deref() !== undefined); round++) {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
  }
  return seen.filter((ref) => ref.deref() !== undefined).length;
}

describe('a sandbox nobody references', () => {
  it.each([
    ['dropped', false],
    ['closed and dropped', true],
  ])('is collected with its timers when %s (25 real-time sandboxes with a deposit window and a webhook retry armed)', async (_name, close) => {
    const seen: Array<WeakRef<object>> = [];
    for (let n = 1; n <= 25; n++) await dropped(n, close, seen);
    expect(seen).toHaveLength(50);
    expect(await collectAll(seen)).toBe(0);
  });

  it('is kept while referenced (the check can fail)', async () => {
    const seen: Array<WeakRef<object>> = [];
    const kept = createSandbox();
    seen.push(new WeakRef(kept));
    expect(await collectAll(seen, 2)).toBe(1);
    expect(kept.apiKey).toMatch(/^sk_test_/);
    await kept.close();
  });
});
