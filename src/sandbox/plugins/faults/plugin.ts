/**
 * The fault plugin: plans (`sandbox.faults`, /v1/test_helpers/faults) and the three stages that
 * apply them (transport, pick, latency).
 * @module
 */
import type { Random } from '../../core/random.js';
import type { SandboxPlugin } from '../../http/plugin.js';
import { FaultInjector, type SandboxFaults } from './injector.js';
import { faultRoutes } from './routes.js';

/** Builds the fault plugin; plan ids come from `random`. */
export function faultsPlugin(random: Random): SandboxPlugin<SandboxFaults> {
  const injector = new FaultInjector(random);
  return { api: injector, routes: faultRoutes(injector), stages: injector.stages };
}
