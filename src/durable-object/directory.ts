/**
 * The key directory: API key secret -> tenant object, and every tenant with its object (the
 * operator's listing), in one small object whose SQLite tables survive restarts, plus the answers
 * of tenant creations under their Idempotency-Key. Spoken to with `fetch` (JSON, internal URLs)
 * rather than RPC: RPC needs the runtime's `DurableObject` base class (docs/decisions.md,
 * "pix-usdt/durable-object").
 * @module
 */
import type { DurableObjectContext, SandboxWorkerEnv } from './runtime.js';

/** Where a key leads: its tenant's object and the tenant's id. */
export interface KeyRoute {
  /** The tenant object's id (string form). */
  object: string;
  /** The tenant's id. */
  tenant: string;
}

/** A tenant as the directory lists it. */
export interface ListedTenant {
  /** The tenant's id. */
  tenant_id: string;
  /** When the directory registered it (real time, ISO 8601). */
  created_at: string;
}

/** A page of the listing: the directory's own (no tenant object is woken for it). */
export interface TenantPage {
  /** Tenants in the order they were made. */
  data: Array<ListedTenant & { object: string }>;
  /** The cursor of the next page, or `null` after the last. */
  next_cursor: string | null;
}

const ORIGIN = 'https://directory.internal';

/** The directory's operations, over its `fetch`. */
export interface DirectoryClient {
  /** The object of a key's tenant, or `null`. */
  lookup(secret: string): Promise<KeyRoute | null>;
  /** The object of a tenant, by the tenant's id, or `null`. */
  tenant(tenantId: string): Promise<KeyRoute | null>;
  /** A page of tenants, in the order they were made, after `cursor` (`null`: from the first). */
  tenants(cursor: string | null, limit: number): Promise<TenantPage>;
  /** Registers the keys of a tenant's object (new keys of a rotation included). */
  register(route: KeyRoute, secrets: string[]): Promise<void>;
  /** The stored answer of a tenant creation under (caller, Idempotency-Key), or `null`. */
  creation(scope: string, key: string): Promise<string | null>;
  /** Stores the answer of a tenant creation, the new tenant and its keys, together. */
  created(scope: string, key: string | null, answer: string, route: KeyRoute, secrets: string[]): Promise<void>;
}

/** The directory of a Worker's bindings. */
export function directoryOf(env: SandboxWorkerEnv): DirectoryClient {
  const stub = env.DIRECTORY.get(env.DIRECTORY.idFromName('directory'));
  const call = async (op: string, body: unknown): Promise<unknown> => {
    const response = await stub.fetch(new Request(`${ORIGIN}/${op}`, { method: 'POST', body: JSON.stringify(body) }));
    if (!response.ok) throw new Error(`The directory refused ${op}: ${response.status}`);
    return response.json();
  };
  return {
    lookup: async (secret) => (await call('lookup', { secret })) as KeyRoute | null,
    tenant: async (tenantId) => (await call('tenant', { tenant: tenantId })) as KeyRoute | null,
    tenants: async (cursor, limit) => (await call('tenants', { cursor, limit })) as TenantPage,
    register: async (route, secrets) => void (await call('register', { route, secrets })),
    creation: async (scope, key) => (await call('creation', { scope, key })) as string | null,
    created: async (scope, key, answer, route, secrets) => void (await call('created', { scope, key, answer, route, secrets })),
  };
}

/** Key -> tenant object, and the tenants: one small object whose tables survive restarts (the Worker caches key hits). */
export class Directory {
  readonly #sql: DurableObjectContext['storage']['sql'];

  constructor(ctx: DurableObjectContext, _env: SandboxWorkerEnv) {
    this.#sql = ctx.storage.sql;
    this.#sql.exec('CREATE TABLE IF NOT EXISTS keys (secret TEXT PRIMARY KEY, object TEXT NOT NULL, tenant TEXT NOT NULL) WITHOUT ROWID');
    this.#sql.exec('CREATE TABLE IF NOT EXISTS creations (scope TEXT NOT NULL, key TEXT NOT NULL, answer TEXT NOT NULL, PRIMARY KEY (scope, key)) WITHOUT ROWID');
    // The rowid is the listing's order and cursor: tenants are never deleted.
    this.#sql.exec('CREATE TABLE IF NOT EXISTS tenants (seq INTEGER PRIMARY KEY, tenant TEXT NOT NULL UNIQUE, object TEXT NOT NULL, created_at TEXT NOT NULL)');
  }

  /** The directory's operations, as the Worker and the tenant objects send them (JSON to internal URLs); nothing else reaches it. */
  async fetch(request: Request): Promise<Response> {
    const op = new URL(request.url).pathname.slice(1);
    // Written by directoryOf only (the objects are reachable from the Worker alone).
    const body = (await request.json()) as { secret: string; tenant: string; cursor: string | null; limit: number; route: KeyRoute; secrets: string[]; scope: string; key: string | null; answer: string };
    switch (op) {
      case 'lookup':
        return Response.json(this.#lookup(body.secret));
      case 'tenant':
        return Response.json(this.#tenant(body.tenant));
      case 'tenants':
        return Response.json(this.#tenants(body.cursor, body.limit));
      case 'register':
        this.#register(body.route, body.secrets);
        return Response.json(null);
      case 'creation':
        return Response.json(body.key === null ? null : this.#creation(body.scope, body.key));
      case 'created':
        // No await between the writes: the runtime commits them together.
        this.#register(body.route, body.secrets);
        this.#sql.exec('INSERT INTO tenants (tenant, object, created_at) VALUES (?, ?, ?) ON CONFLICT (tenant) DO NOTHING', body.route.tenant, body.route.object, new Date().toISOString());
        if (body.key !== null) this.#sql.exec('INSERT INTO creations (scope, key, answer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', body.scope, body.key, body.answer);
        return Response.json(null);
      default:
        return new Response(null, { status: 404 });
    }
  }

  #lookup(secret: string): KeyRoute | null {
    const row = this.#sql.exec('SELECT object, tenant FROM keys WHERE secret = ?', secret).toArray()[0];
    return row === undefined ? null : { object: String(row['object']), tenant: String(row['tenant']) };
  }

  #tenant(tenant: string): KeyRoute | null {
    const row = this.#sql.exec('SELECT object FROM tenants WHERE tenant = ?', tenant).toArray()[0];
    return row === undefined ? null : { object: String(row['object']), tenant };
  }

  #tenants(cursor: string | null, limit: number): TenantPage {
    const after = cursor === null ? 0 : Number(cursor);
    const rows = this.#sql.exec('SELECT seq, tenant, object, created_at FROM tenants WHERE seq > ? ORDER BY seq LIMIT ?', after, limit + 1).toArray();
    const page = rows.slice(0, limit);
    return {
      data: page.map((r) => ({ tenant_id: String(r['tenant']), object: String(r['object']), created_at: String(r['created_at']) })),
      next_cursor: rows.length > limit ? String(page[page.length - 1]?.['seq']) : null,
    };
  }

  #register(route: KeyRoute, secrets: string[]): void {
    for (const secret of secrets) this.#sql.exec('INSERT INTO keys (secret, object, tenant) VALUES (?, ?, ?) ON CONFLICT (secret) DO NOTHING', secret, route.object, route.tenant);
  }

  #creation(scope: string, key: string): string | null {
    const row = this.#sql.exec('SELECT answer FROM creations WHERE scope = ? AND key = ?', scope, key).toArray()[0];
    return row === undefined ? null : String(row['answer']);
  }
}
