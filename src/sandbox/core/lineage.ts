/**
 * Which tenant made which (issue 35): a bound on the tenants one tree may make over the API. A
 * tenant made in code (`createSandbox`'s default tenant, `sandbox.createTenant`) is a root; a
 * tenant made with `POST /v1/test_helpers/tenants` (new or a fork) belongs to the root of the
 * caller's tenant, so a tenant that makes tenants that make tenants counts them all against one
 * root. The root keeps how many its tree made; at `maxTenantsPerRoot` the next one is refused
 * (403 `tenant_limit_exceeded`) and nothing changes.
 *
 * Kept in the tenants' own state (`extensions.lineage`: `{ root }` on a tenant that was made,
 * `{ made }` on a root that made some), so that a stored sandbox (`serve --data`) writes it with
 * their rows and still counts after a restart. A tenant document carries no lineage: an export
 * leaves it out, and a fork takes the lineage of who forks it (a root in code, the caller's root
 * over HTTP), whatever the document says.
 * @module
 */
import { ApiError } from './errors.js';
import type { TenantState } from './state.js';

/** Where a tenant keeps its lineage: `tenant.extensions.lineage`. */
export const LINEAGE_EXTENSION = 'lineage';

/** Tenants one root's tree may make over the API, by default (`maxTenantsPerRoot`, `serve --max-tenants-per-root`). */
export const DEFAULT_MAX_TENANTS_PER_ROOT = 1_000;

interface Lineage {
  /** The root of a tenant made over the API. */
  root?: string;
  /** Tenants the tree of this root made over the API. */
  made?: number;
}

function lineageOf(tenant: TenantState): Lineage {
  const value = tenant.extensions[LINEAGE_EXTENSION];
  return typeof value === 'object' && value !== null ? (value as Lineage) : {};
}

/** The id of a tenant's root (its own id for a root). */
export function rootOf(tenant: TenantState): string {
  const root = lineageOf(tenant).root;
  return typeof root === 'string' && root !== '' ? root : tenant.id;
}

/** How many tenants the tree of `root` made over the API. */
export function madeBy(root: TenantState): number {
  const made = lineageOf(root).made;
  return typeof made === 'number' && Number.isInteger(made) && made > 0 ? made : 0;
}

/** Makes a tenant a root (one made in code, a fork from code): whatever lineage it came with is gone. */
export function makeRoot(tenant: TenantState): void {
  delete tenant.extensions[LINEAGE_EXTENSION];
}

/** What the bound needs of the platform. */
export interface LineagePlatform {
  /** A tenant, loaded if it is not in memory. */
  tenant(id: string): TenantState | undefined;
  /** Another tenant than the caller's changed (a stored sandbox writes it with the answer). */
  touched(tenant: TenantState): void;
}

/**
 * Checks that the caller's tree may make one more tenant, changing nothing; answers the function
 * that records the tenant once made (its root, the root's count). Throws 403
 * `tenant_limit_exceeded` at the bound.
 */
export function claimTenant(platform: LineagePlatform, caller: TenantState, limit: number): (child: TenantState) => void {
  // A root that no longer exists leaves its tree counting against the caller.
  const root = platform.tenant(rootOf(caller)) ?? caller;
  const made = madeBy(root);
  if (made >= limit) {
    throw new ApiError(
      'tenant_limit_exceeded',
      `This tenant's tree (the tenant it was made from, and every tenant made from those) has made ${made} tenants, the server's limit of tenants per root; nothing was created. ` +
        'The operator raises it with `serve --max-tenants-per-root N` (`createSandbox({ maxTenantsPerRoot: N })` in code).',
      { limit, reason: 'tenants_per_root' },
    );
  }
  return (child) => {
    child.extensions[LINEAGE_EXTENSION] = { root: root.id };
    root.extensions[LINEAGE_EXTENSION] = { ...lineageOf(root), made: made + 1 };
    platform.touched(root);
  };
}
