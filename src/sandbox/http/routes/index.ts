/**
 * Every route of the engine.
 * @module
 */
import { API_KEY_ROUTES } from './api-keys.js';
import { CONVERSION_ROUTES } from './conversions.js';
import { QUOTE_ROUTES } from './quotes.js';
import { TEST_HELPER_ROUTES } from './test-helpers.js';
import { FAULT_ROUTES } from '../../plugins/faults/routes.js';
import { WEBHOOK_ROUTES } from '../../plugins/webhooks/routes.js';
import { TRANSACTION_ROUTES } from './transactions.js';
import type { RouteDef } from './types.js';
import { USER_ROUTES } from './users.js';

export type { RouteDef } from './types.js';

/** All routes, in registration order. */
export const ALL_ROUTES: readonly RouteDef[] = [
  ...API_KEY_ROUTES,
  ...USER_ROUTES,
  ...QUOTE_ROUTES,
  ...CONVERSION_ROUTES,
  ...TRANSACTION_ROUTES,
  ...TEST_HELPER_ROUTES,
  ...WEBHOOK_ROUTES,
  ...FAULT_ROUTES,
];
