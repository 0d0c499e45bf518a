/**
 * Every route of a sandbox, core and plugins, in registration order: the definitions that
 * docs/openapi.json and the fuzzer read. Not part of the public entry.
 * @module
 */
import type { RouteDef } from './http/routes/types.js';
import { allRoutes } from './sandbox.js';

export type { RouteDef } from './http/routes/types.js';

/** Every route (built once, from a sandbox with default options). */
export const ALL_ROUTES: readonly RouteDef[] = allRoutes();
