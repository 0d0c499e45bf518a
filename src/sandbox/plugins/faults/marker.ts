/**
 * The marker of an injected network fault, on its own so that adapters (msw, the server) can
 * recognise it without loading the sandbox.
 * @module
 */

/** Header of the marker answer `sandbox.handle` gives for an injected network fault. */
export const NETWORK_FAULT_HEADER = 'x-pix-usdt-sandbox-fault';
/** Header naming the plan behind an injected error answer. */
export const FAULT_PLAN_HEADER = 'x-pix-usdt-sandbox-fault-plan';

/** Whether a `sandbox.handle` answer is the marker of an injected network fault. */
export function isNetworkFault(response: Response): boolean {
  return response.headers.get(NETWORK_FAULT_HEADER) !== null;
}

/** The id of the fault plan that answered, from an answer's headers (`null`: no fault). */
export function faultPlanOf(headers: Record<string, string>): string | null {
  const planned = headers[FAULT_PLAN_HEADER];
  if (planned !== undefined) return planned;
  const network = headers[NETWORK_FAULT_HEADER];
  return network === undefined ? null : (/plan=([^;]+)/.exec(network)?.[1] ?? network);
}
