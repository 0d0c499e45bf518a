/**
 * What a closed sandbox answers (issue 21): `sandbox.close()` stops its timers and deliveries at
 * once; after it, whatever would act (send a request, move time, deliver, change state) throws
 * this error (a promise rejects with it; `fetch` rejects as on a stopped server, with it as the
 * cause), while reads answer the state as it was when it closed.
 * @module
 */
import type { SandboxWebhooks } from './plugins/webhooks/index.js';
import type { SandboxFaults } from './plugins/faults/index.js';

/** What a closed sandbox's acting methods throw (or reject with). */
export class SandboxClosedError extends Error {
  override readonly name = 'SandboxClosedError';

  constructor(what: string) {
    super(`${what}: this sandbox is closed (sandbox.close() or its dispose ran); create another with createSandbox().`);
  }
}

/** True for a {@link SandboxClosedError}, also from another realm (checks the name). */
export function isSandboxClosedError(error: unknown): error is SandboxClosedError {
  return error instanceof Error && error.name === 'SandboxClosedError';
}

/** `fetch`'s answer on a closed sandbox: the rejection of a fetch whose server is gone. */
export function closedFetch(): Promise<never> {
  return Promise.reject(new TypeError('fetch failed', { cause: new SandboxClosedError('fetch') }));
}

/** `sandbox.webhooks` that refuses to act once `closed()` says so (listen, nextEvent, flush). */
export function guardWebhooks(api: SandboxWebhooks, closed: () => boolean): SandboxWebhooks {
  return {
    delivered: (filter) => api.delivered(filter),
    pending: (tenantId) => api.pending(tenantId),
    assertNothingPending: (tenantId) => api.assertNothingPending(tenantId),
    listen(url, receiver) {
      if (closed()) throw new SandboxClosedError('webhooks.listen');
      return api.listen(url, receiver);
    },
    nextEvent: (type, options) => (closed() ? Promise.reject(new SandboxClosedError('webhooks.nextEvent')) : api.nextEvent(type, options)),
    flush: () => (closed() ? Promise.reject(new SandboxClosedError('webhooks.flush')) : api.flush()),
  };
}

/** `sandbox.faults` that refuses new plans once `closed()` says so (reading and removing stay). */
export function guardFaults(api: SandboxFaults, closed: () => boolean): SandboxFaults {
  return {
    add(plan) {
      if (closed()) throw new SandboxClosedError('faults.add');
      return api.add(plan);
    },
    remove: (id) => api.remove(id),
    clear: (tenantId) => api.clear(tenantId),
    list: (tenantId) => api.list(tenantId),
  };
}
