/**
 * The world the fuzzer hits: a frozen, seeded sandbox whose default tenant holds some data
 * (users, quotes, conversions in several states), a second tenant with data of its own (its ids
 * are "foreign" to the first), and a tenant whose key has no capabilities.
 *
 * "No state changed" means: the sandbox snapshot is identical before and after, except for
 * - `random`: the generator state moves with every request id drawn;
 * - each tenant's `idempotency` records: 4xx answers to mutations with an Idempotency-Key are
 *   stored, as the reference wants (a replay returns the same answer);
 * - each tenant's `rateWindows`: a refused request never enters them, but they are bookkeeping.
 * The stores that later layers create lazily (webhooks, faults) are created before the first
 * snapshot. Everything partners can see (resources, events, usage, keys, clocks, webhook endpoints and
 * fault plans kept in `extensions`) must be byte-for-byte the same.
 */
import { PixUsdt } from '../../src/index.js';
import { type Sandbox, createSandbox } from '../../src/sandbox/index.js';
import type { Keys } from './generator.js';
import { offrampBody, onrampBody } from '../support/fixtures.js';
import { snapshotRecords } from '../support/records.js';


async function populate(client: PixUsdt, prefix: string, cpfs: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [i, document_number] of cpfs.entries()) {
    const user = await client.users.create({ external_id: `${prefix}-${i}`, name: `Fuzz ${i}`, document_type: 'cpf', document_number });
    await client.testHelpers.users.kyc(user.id, { status: 'approved' });
    const onramp = await client.quotes.create(onrampBody(user.id));
    const offramp = await client.quotes.create(offrampBody(user.id));
    const spare = await client.quotes.create(offrampBody(user.id, '10.000000'));
    const a = await client.quotes.accept(onramp.id);
    const b = await client.quotes.accept(offramp.id);
    await client.testHelpers.conversions.simulateOfframpDeposit(b.id, { amount: '90.000000' });
    ids.push(user.id, onramp.id, offramp.id, spare.id, a.id, b.id);
    const page = await client.transactions.list();
    ids.push(...page.data.map((t) => t.id));
  }
  return ids;
}

export async function createFuzzWorld(): Promise<{ sandbox: Sandbox; keys: Keys }> {
  const sandbox = createSandbox({ seed: 'fuzz', now: '2026-03-02T12:00:00.000Z' });
  const mine = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const other = sandbox.createTenant();
  const theirs = new PixUsdt({ apiKey: other.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  const powerless = sandbox.createTenant({ capabilities: [] });
  const ownIds = await populate(mine, 'mine', ['52998224725', '11144477735']);
  const foreignIds = await populate(theirs, 'theirs', ['52998224725']);
  // Later layers create their per-tenant stores on first use (an empty webhook store appears in
  // `extensions`); touch them now so that the comparison sees real changes only.
  for (const key of [sandbox.apiKey, other.apiKey]) {
    const headers = { authorization: `Bearer ${key}` };
    await sandbox.fetch('/v1/webhook_endpoints', { headers });
    await sandbox.fetch('/v1/test_helpers/faults', { headers });
  }
  return { sandbox, keys: { valid: sandbox.apiKey, powerless: powerless.apiKey, ownIds, foreignIds } };
}

/** The snapshot without the parts that may legitimately move (see the module comment). */
export function visibleState(sandbox: Sandbox): string {
  const { random: _random, ...snapshot } = snapshotRecords(sandbox.snapshot());
  const tenants = snapshot.tenants.map(({ idempotency: _i, rateWindows: _r, ...rest }) => rest);
  return JSON.stringify({ ...snapshot, tenants });
}
