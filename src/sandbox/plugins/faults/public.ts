/**
 * What `pix-usdt/sandbox` exports of fault injection.
 * @module
 */
export { isNetworkFault, NETWORK_FAULT_HEADER, FAULT_PLAN_HEADER } from './injector.js';
export type { SandboxFaults } from './injector.js';
export type { FaultAction, FaultPlan, FaultPlanInput } from './plans.js';
