/**
 * `sandbox.webhooks`, the test API of webhook delivery: receivers, the delivered log,
 * `nextEvent`, pending deliveries and `flush`. It reads the delivery service; the service does
 * not know it.
 * @module
 */
import type { Platform } from '../../core/platform.js';
import type { WebhookService } from './service.js';
import type { PendingDelivery, SandboxWebhooks } from './types.js';

const dateOrNull = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** Pending deliveries of every tenant (or of one), oldest first per tenant. */
function pendingDeliveries(platform: Platform, service: WebhookService, tenantId?: string): PendingDelivery[] {
  const out: PendingDelivery[] = [];
  for (const tenant of platform.tenants.values()) {
    if (tenantId !== undefined && tenant.id !== tenantId) continue;
    const store = service.storeIfAny(tenant);
    if (store === undefined) continue;
    for (const d of store.deliveries.page({ index: ['pending', '1'], limit: Infinity }).items.reverse()) {
      let lastError: string | null = null;
      for (let i = d.attempts.length - 1; i >= 0 && lastError === null; i--) lastError = d.attempts[i]?.error ?? null;
      out.push({
        tenantId: tenant.id,
        deliveryId: d.id,
        eventId: d.eventId,
        eventType: d.eventType,
        url: store.endpoints.get(d.endpointId)?.url ?? '',
        attemptCount: d.attempts.length,
        lastError,
        nextAttemptAt: d.nextAttemptAt === null ? null : new Date(d.nextAttemptAt),
        heldBehind: service.heldBehind(tenant, d)?.id ?? null,
        deferredSince: dateOrNull(service.deferredSince(tenant.id, d)),
      });
    }
  }
  return out;
}

/** The test API over one delivery service. */
export function webhookTestApi(platform: Platform, service: WebhookService): SandboxWebhooks {
  const pending = (tenantId?: string): PendingDelivery[] => pendingDeliveries(platform, service, tenantId);
  return {
    listen: (url, receiver) => service.receivers.listen(url, receiver),
    nextEvent: (type, options = {}) =>
      service.log.next(type, options.tenantId, options.timeoutMs ?? 5_000, () => `${pending(options.tenantId).length} deliveries pending`),
    delivered: (filter) => service.log.filter(filter),
    pending,
    assertNothingPending(tenantId) {
      const list = pending(tenantId);
      if (list.length === 0) return;
      const lines = list.map(
        (p) =>
          `- ${p.deliveryId}: ${p.eventType} (event ${p.eventId}) to ${p.url}, ${p.attemptCount} ${p.attemptCount === 1 ? 'attempt' : 'attempts'}` +
          `${p.lastError ? `, last error: ${p.lastError}` : ''}${p.nextAttemptAt ? `, next attempt at ${p.nextAttemptAt.toISOString()}` : ''}` +
          `${p.heldBehind ? `, held behind ${p.heldBehind} (an earlier event of the same object)` : ''}` +
          `${p.deferredSince ? `, delayed since ${p.deferredSince.toISOString()} by the endpoint's circuit (attempts to it keep ending without an answer)` : ''}`,
      );
      throw new Error(`${list.length === 1 ? '1 webhook delivery is' : `${list.length} webhook deliveries are`} pending:\n${lines.join('\n')}`);
    },
    async flush() {
      platform.runDue();
      await platform.settle();
    },
  };
}
