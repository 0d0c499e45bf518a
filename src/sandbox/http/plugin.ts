/**
 * The shape of a plugin: what it adds to the app (routes, stages) and to the platform (timer
 * and record kinds), and the API the sandbox exposes for it. A plugin is built by a factory that closes
 * over its own state: nothing points back from the platform or the app to a plugin.
 * @module
 */
import type { RecordTable } from '../core/persist.js';
import type { ExtensionSchema } from '../core/tenant-schema.js';
import type { TimerTable } from '../core/timers.js';
import type { StageInsert } from './call.js';
import type { RouteDef } from './routes/types.js';

/** What a plugin factory returns. */
export interface SandboxPlugin<Api> {
  /** The object the sandbox exposes (`sandbox.webhooks`, `sandbox.faults`). */
  api: Api;
  /** Its HTTP routes, added after the core ones. */
  routes: readonly RouteDef[];
  /** Its stages, each before the stage it names. */
  stages?: readonly StageInsert[];
  /** Its timer kinds, fired and restored by the platform like the core ones. */
  timers?: TimerTable;
  /**
   * Stops its work at once when the sandbox closes (`reason` is what later calls get); resolves
   * once what was in flight has ended.
   */
  close?(reason: Error): Promise<void>;
  /** Its record kinds: a stored sandbox writes and loads them as rows like the core ones (core/persist.ts). */
  recordKinds?: RecordTable;
  /** The schema of its part of a tenant's `extensions` (by name): a tenant document is checked with it whole (core/tenant-schema.ts). */
  extensions?: Record<string, ExtensionSchema>;
}
