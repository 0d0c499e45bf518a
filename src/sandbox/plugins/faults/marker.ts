/**
 * The marker of an injected network fault, on its own so that adapters (msw, the server) can
 * recognise it without loading the engine.
 * @module
 */

/** Header of the marker answer `sandbox.handle` gives for an injected network fault. */
export const NETWORK_FAULT_HEADER = 'x-pix-usdt-sandbox-fault';

/** Whether a `sandbox.handle` answer is the marker of an injected network fault. */
export function isNetworkFault(response: Response): boolean {
  return response.headers.get(NETWORK_FAULT_HEADER) !== null;
}
