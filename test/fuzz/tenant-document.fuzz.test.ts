/**
 * Mutated tenant documents (issue 35): a real export with one to three values replaced, removed
 * or duplicated anywhere in it. Each one is either refused whole (a TenantDocumentError, nothing
 * changed) or restored, and then every read of the fork answers (no 5xx), its clock runs its
 * timers, and the operator's listing and its export still answer.
 *
 * A small count in `npm test`; DOCUMENT_FUZZ_RUNS=2000 (and DOCUMENT_FUZZ_SEED to replay) for a
 * long campaign. fast-check prints the seed and the shrunk mutation on failure.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { PixUsdt } from '../../src/index.js';
import { type Sandbox, type TenantDocument, TenantDocumentError, createSandbox } from '../../src/sandbox/index.js';
import { internalsOf } from '../../src/sandbox/sandbox.js';
import { createConversion } from '../../src/testing/index.js';

const SEED = Number(process.env['DOCUMENT_FUZZ_SEED'] ?? 20_261_235);
const RUNS = Number(process.env['DOCUMENT_FUZZ_RUNS'] ?? 60);

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

let sandbox: Sandbox;
let doc: { [key: string]: Json };
let paths: Path[];
const outcomes = { refused: 0, restored: 0 };

/** Every place in a JSON value: the paths of its members and items, the root excluded. */
function pathsOf(value: Json, at: Path = [], out: Path[] = []): Path[] {
  const children: Array<[string | number, Json]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : value !== null && typeof value === 'object' ? Object.entries(value) : [];
  for (const [key, child] of children) {
    out.push([...at, key]);
    pathsOf(child, [...at, key], out);
  }
  return out;
}

/** Values that broke something once, or could: ids that corrupt text, out-of-range numbers and instants, wrong types. */
const weird: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>('"', ',', '1', 'status', '', 'NaN', '-1', '-5.00', '1e3', 'abc', '+275760-09-13T00:00:00.000Z', '2026-03-02', '00000000-0000-4000-8000-000000000000', 'sk_test_00000000000000000000000000000000', 'req_1\r\nx: y', 'chunked', 'whsec_x'),
  fc.constantFrom<Json>(-1, 0, 1, 1.5, 101, 204, 999, 2 ** 31, 2_000_000, 1e300, 8.64e15, -8.64e15, null, true, false, {}, [], { id: 'x' }, [[]]),
  fc.string({ maxLength: 12 }),
  fc.integer(),
);

type Mutation = { path: number; op: 'set'; value: Json } | { path: number; op: 'remove' } | { path: number; op: 'duplicate' };
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ path: fc.nat(), op: fc.constant('set' as const), value: weird }),
  fc.record({ path: fc.nat(), op: fc.constant('remove' as const) }),
  fc.record({ path: fc.nat(), op: fc.constant('duplicate' as const) }),
);

function apply(target: { [key: string]: Json }, m: Mutation): void {
  const path = paths[m.path % paths.length] as Path;
  let parent: Json = target;
  for (const part of path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return;
    parent = (parent as Record<string | number, Json>)[part] as Json;
  }
  if (parent === null || typeof parent !== 'object') return;
  const last = path[path.length - 1] as string | number;
  const holder = parent as Record<string | number, Json>;
  if (!(last in holder)) return;
  if (m.op === 'set') holder[last] = m.value;
  else if (m.op === 'remove') {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete holder[last];
  } else if (Array.isArray(parent)) parent.push(JSON.parse(JSON.stringify(parent[last as number])) as Json);
  else holder[`${String(last)}_copy`] = holder[last] as Json;
}

function state(): string {
  const { platform } = internalsOf(sandbox)!;
  return JSON.stringify({ tenants: [...platform.tenants.keys()], keys: platform.keys.size, usage: [...platform.platformUsage] });
}

/** Every read a partner makes of a tenant, with the ids its lists give; the statuses seen. */
async function reads(apiKey: string): Promise<Array<[string, number]>> {
  const seen: Array<[string, number]> = [];
  const get = async (path: string): Promise<Record<string, unknown> | null> => {
    const response = await sandbox.fetch(path, { headers: { authorization: `Bearer ${apiKey}` } });
    seen.push([path, response.status]);
    return response.ok ? ((await response.json()) as Record<string, unknown>) : null;
  };
  for (const [list, one] of [
    ['/v1/users', '/v1/users/'],
    ['/v1/quotes', '/v1/quotes/'],
    ['/v1/conversions', '/v1/conversions/'],
    ['/v1/transactions', '/v1/transactions/'],
    ['/v1/webhook_endpoints', '/v1/webhook_endpoints/'],
  ] as const) {
    const page = await get(list);
    for (const item of (page?.['data'] as Array<{ id: string }> | undefined) ?? []) {
      await get(`${one}${item.id}`);
      if (list === '/v1/users') await get(`${one}${item.id}/wallet`);
      if (list === '/v1/webhook_endpoints') await get(`${one}${item.id}/deliveries`);
    }
  }
  for (const path of ['/v1/api-keys', '/v1/test_helpers/events', '/v1/test_helpers/clock', '/v1/test_helpers/tenant/snapshot', '/v1/test_helpers/price']) await get(path);
  return seen;
}

beforeAll(async () => {
  sandbox = createSandbox({ seed: 'document-fuzz', now: '2026-03-02T12:00:00.000Z' });
  const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch, maxRetries: 0 });
  await client.webhookEndpoints.create({ url: 'https://receiver.example/hooks', event_types: ['*'] });
  for (const status of ['completed', 'awaiting_deposit', 'standby', 'funded', 'failed'] as const) await createConversion(client, { status });
  sandbox.settings.setPrice({ spreadBps: 75 });
  await sandbox.webhooks.flush();
  doc = JSON.parse(JSON.stringify(sandbox.exportTenant())) as typeof doc;
  paths = pathsOf(doc);
});

describe('mutated tenant documents', () => {
  it(`${RUNS} documents with 1-3 mutations: refused whole, or restored with every read answering (seed ${SEED})`, { timeout: 240_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const copy = JSON.parse(JSON.stringify(doc)) as typeof doc;
        for (const m of mutations) apply(copy, m);
        const before = state();
        let fork: ReturnType<Sandbox['createTenant']>;
        try {
          fork = sandbox.createTenant({ snapshot: copy as unknown as TenantDocument });
        } catch (error) {
          expect(error).toBeInstanceOf(TenantDocumentError);
          expect(state()).toBe(before);
          outcomes.refused++;
          return;
        }
        outcomes.restored++;
        const key = internalsOf(sandbox)!.platform.tenants.get(fork.tenantId)!.keys.find((k) => k.secret === fork.apiKey)!;
        const answers = await reads(fork.apiKey);
        await fork.clock.advance({ days: 8 });
        answers.push(...(await reads(fork.apiKey)));
        for (const [path, status] of answers) {
          expect(status, path).toBeLessThan(500);
          // A refusal only where the document took the key's right away: revoked, or without the capability.
          if (status >= 400 && key.revokedAt === null && key.capabilities.length === 14) expect([path, status]).toEqual([path, 200]);
        }
        const listing = await sandbox.inspector.fetch(new Request('https://sandbox.local/_inspector/api/tenants'));
        expect(listing.status).toBe(200);
        expect((await sandbox.inspector.fetch(new Request(`https://sandbox.local/_inspector/api/tenants/${fork.tenantId}`))).status).toBe(200);
        expect(() => sandbox.exportTenant(fork.tenantId)).not.toThrow();
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    // Both outcomes are exercised: the property says something about each.
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.restored).toBeGreaterThan(0);
    if (process.env['DOCUMENT_FUZZ_STATS']) console.log(outcomes);
  });
});
