/**
 * The bound on tenants one root's tree may make over the API (issue 35): tenants made by
 * tenants it made count against the root; past the bound the call is refused with an enveloped
 * 403 that says the limit and how to raise it, and makes nothing. A tenant made in code is a root
 * of its own; a document carries no lineage; a stored sandbox still counts after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, type SandboxOptions, createSandbox, createStoredSandbox } from '../../../src/sandbox/index.js';
import { openSqlite } from '../../../src/server/data/driver.js';

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of opened.splice(0)) await s.close();
});

function sandboxWith(options: SandboxOptions): Sandbox {
  const sandbox = createSandbox({ seed: 'lineage', now: '2026-03-02T12:00:00.000Z', ...options });
  opened.push(sandbox);
  return sandbox;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** `POST /v1/test_helpers/tenants` with a key, through the sandbox's fetch. */
async function makeTenant(sandbox: Pick<Sandbox, 'fetch'>, key: string, body: unknown = {}, idempotencyKey?: string): Promise<Answer> {
  const res = await sandbox.fetch('/v1/test_helpers/tenants', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const keyOf = (answer: Answer): string => answer.body['api_key'] as string;

function expectRefused(answer: Answer, limit: number): void {
  expect(answer.status).toBe(403);
  expect(answer.body).toMatchObject({ code: 'tenant_limit_exceeded', details: { limit, reason: 'tenants_per_root' } });
  expect(answer.body['request_id']).toMatch(/^req_/);
  expect(answer.body['message']).toMatch(new RegExp(`made ${limit} tenants.*nothing was created.*serve --max-tenants-per-root N.*maxTenantsPerRoot`));
}

describe('tenants made over the API count against the root of the caller', () => {
  it('a tenant that makes tenants that make tenants (forks included) counts them all against its root, and the next is refused', async () => {
    const sandbox = sandboxWith({ maxTenantsPerRoot: 3 });
    const child = await makeTenant(sandbox, sandbox.apiKey);
    expect(child.status).toBe(201);
    const grandchild = await makeTenant(sandbox, keyOf(child));
    expect(grandchild.status).toBe(201);
    const doc = await (await sandbox.fetch('/v1/test_helpers/tenant/snapshot', { headers: { authorization: `Bearer ${keyOf(grandchild)}` } })).json();
    const fork = await makeTenant(sandbox, keyOf(grandchild), { snapshot: doc });
    expect(fork.status).toBe(201);
    const before = sandbox.inspector.tenants().length;
    expect(before).toBe(4);
    // The fourth, whoever asks in the tree: refused, and nothing made.
    for (const key of [sandbox.apiKey, keyOf(child), keyOf(grandchild), keyOf(fork)]) expectRefused(await makeTenant(sandbox, key), 3);
    expectRefused(await makeTenant(sandbox, keyOf(child), { snapshot: doc }), 3);
    expect(sandbox.inspector.tenants()).toHaveLength(before);
  });

  it('a tenant made in code is a root of its own, and so is a fork made in code', async () => {
    const sandbox = sandboxWith({ maxTenantsPerRoot: 1 });
    const child = await makeTenant(sandbox, sandbox.apiKey);
    expect(child.status).toBe(201);
    expectRefused(await makeTenant(sandbox, keyOf(child)), 1);
    const root = sandbox.createTenant();
    expect((await makeTenant(sandbox, root.apiKey)).status).toBe(201);
    // The exported child forked in code: a root, with its own bound.
    const doc = sandbox.exportTenant(child.body['tenant_id'] as string);
    const forked = sandbox.createTenant({ snapshot: doc });
    expect((await makeTenant(sandbox, forked.apiKey)).status).toBe(201);
    expectRefused(await makeTenant(sandbox, forked.apiKey), 1);
  });

  it('a replayed creation (same Idempotency-Key) makes nothing and counts nothing', async () => {
    const sandbox = sandboxWith({ maxTenantsPerRoot: 2 });
    const first = await makeTenant(sandbox, sandbox.apiKey, {}, 'same');
    const again = await makeTenant(sandbox, sandbox.apiKey, {}, 'same');
    expect(again.body['tenant_id']).toBe(first.body['tenant_id']);
    expect((await makeTenant(sandbox, sandbox.apiKey)).status).toBe(201);
    expectRefused(await makeTenant(sandbox, sandbox.apiKey), 2);
  });

  it('a document carries no lineage: an export leaves it out, and a forged one cannot move a fork to another tree', async () => {
    const sandbox = sandboxWith({ maxTenantsPerRoot: 2 });
    const child = await makeTenant(sandbox, sandbox.apiKey);
    const doc = sandbox.exportTenant(child.body['tenant_id'] as string) as unknown as { tenant: { extensions: Record<string, unknown> } };
    expect(Object.keys(doc.tenant.extensions)).not.toContain('lineage');
    const other = sandbox.createTenant();
    // Claims to be another root that made nothing: the fork is still the caller's root's.
    doc.tenant.extensions['lineage'] = { root: other.tenantId, made: -100 };
    expect((await makeTenant(sandbox, keyOf(child), { snapshot: doc })).status).toBe(201);
    expectRefused(await makeTenant(sandbox, keyOf(child), { snapshot: doc }), 2);
    expect((await makeTenant(sandbox, other.apiKey)).status).toBe(201);
  });

  it('a whole-sandbox snapshot keeps the lineage through a restore, and refuses a malformed one whole', async () => {
    const sandbox = sandboxWith({ maxTenantsPerRoot: 1 });
    expect((await makeTenant(sandbox, sandbox.apiKey)).status).toBe(201);
    const snapshot = sandbox.snapshot();
    const restored = sandboxWith({ maxTenantsPerRoot: 1 });
    restored.restore(structuredClone(snapshot));
    // The root's count came along: its next tenant is refused in the restored sandbox too.
    expectRefused(await makeTenant(restored, sandbox.apiKey), 1);
    const forged = structuredClone(snapshot) as unknown as { tenants: Array<{ extensions: Record<string, unknown> }> };
    const root = forged.tenants.find((t) => 'lineage' in t.extensions);
    expect(root).toBeDefined();
    root!.extensions['lineage'] = { made: -100 };
    const other = sandboxWith({ maxTenantsPerRoot: 1 });
    expect(() => other.restore(forged as unknown as typeof snapshot)).toThrow(/lineage\.made/);
    expect(other.inspector.tenants()).toHaveLength(1);
  });

  it('0 lets no key make tenants over the API; Infinity sets no bound; anything else is refused at creation', async () => {
    const none = sandboxWith({ maxTenantsPerRoot: 0 });
    expectRefused(await makeTenant(none, none.apiKey), 0);
    const unbounded = sandboxWith({ maxTenantsPerRoot: Infinity });
    for (let i = 0; i < 3; i++) expect((await makeTenant(unbounded, unbounded.apiKey)).status).toBe(201);
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => createSandbox({ maxTenantsPerRoot: bad })).toThrow(/maxTenantsPerRoot must be a whole number from 0, or Infinity/);
  });

  it('a stored sandbox counts the tree across a restart', async () => {
    const db = openSqlite(':memory:');
    opened.push({ close: async () => db.close() });
    const options = { seed: 'lineage-stored', now: '2026-03-02T12:00:00.000Z', maxTenantsPerRoot: 2 } as const;
    const first = createStoredSandbox(db, options);
    const child = await makeTenant(first, first.apiKey);
    expect((await makeTenant(first, keyOf(child))).status).toBe(201);
    await first.close();
    const second = createStoredSandbox(db, options);
    opened.unshift(second);
    expectRefused(await makeTenant(second, keyOf(child)), 2);
    expectRefused(await makeTenant(second, second.apiKey), 2);
  });
});
