/**
 * Deterministic fault injection for the sandbox: `sandbox.faults` and /v1/test_helpers/faults.
 * @module
 */
export { FaultInjector, FAULT_PLAN_HEADER, NETWORK_FAULT_HEADER, isNetworkFault } from './injector.js';
export type { SandboxFaults } from './injector.js';
export { faultRoutes, CreateFaultBody } from './routes.js';
export { faultsPlugin } from './plugin.js';
export type { FaultAction, FaultPlan, FaultPlanInput } from './plans.js';
