/**
 * The core routes of the app (plugins add theirs: see src/sandbox/routes.ts for the full list).
 * @module
 */
import { API_KEY_ROUTES } from './api-keys.js';
import { CONVERSION_ROUTES } from './conversions.js';
import { QUOTE_ROUTES } from './quotes.js';
import type { TenantTransfer } from '../../core/transfer.js';
import { testHelperRoutes } from './test-helpers.js';
import { TRANSACTION_ROUTES } from './transactions.js';
import type { RouteDef } from './types.js';
import { USER_ROUTES } from './users.js';

export type { RouteDef } from './types.js';

/** Core routes, in registration order; the tenants helpers move tenants through `transfer`. */
export function coreRoutes(transfer: TenantTransfer): RouteDef[] {
  return [...API_KEY_ROUTES, ...USER_ROUTES, ...QUOTE_ROUTES, ...CONVERSION_ROUTES, ...TRANSACTION_ROUTES, ...testHelperRoutes(transfer)];
}
