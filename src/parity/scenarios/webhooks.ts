/**
 * Webhook delivery to the caller's receiver: events of a conversion, signed.
 * @module
 */
import { verifySignature } from '../../webhooks/index.js';
import { WEBHOOK_ENDPOINT_FIELDS } from '../reference.js';
import type { ReceivedWebhook } from '../types.js';
import type { ScenarioScript } from '../context.js';
import { newConversion } from './bodies.js';

function header(headers: Record<string, string>, pattern: RegExp): [string, string] | undefined {
  const entry = Object.entries(headers).find(([k]) => pattern.test(k));
  return entry === undefined ? undefined : [entry[0].toLowerCase(), entry[1]];
}

function eventOf(delivery: ReceivedWebhook): { type?: unknown; objectId?: unknown } {
  try {
    const body = JSON.parse(delivery.body) as { type?: unknown; data?: { object?: { id?: unknown } } };
    return { type: body.type, objectId: body.data?.object?.id };
  } catch {
    return {};
  }
}

/** Webhook scenarios (only with a receiver URL). */
export const WEBHOOK_SCENARIOS: readonly ScenarioScript[] = [
  {
    id: 'webhooks.delivery',
    title: 'Webhook endpoint, a conversion to completed, its deliveries and signatures',
    promises: 'the creation answer carries the secret once; conversion.created then conversion.completed are delivered to the receiver, each signed HMAC-SHA256 over "{t}.{raw_body}" with that secret and identified by an event-id header',
    needsReceiver: true,
    async run(ctx) {
      const url = ctx.receiverUrl as string;
      const endpoint = await ctx.step('create the endpoint', () =>
        ctx.client.webhookEndpoints.create({ url, event_types: ['conversion.created', 'conversion.completed'], description: `${ctx.runId} conformance` }));
      ctx.expectFields('Webhook endpoint', endpoint, WEBHOOK_ENDPOINT_FIELDS);
      ctx.expectEqual('endpoint status', 'active', endpoint.status);
      const secret = (endpoint as unknown as Record<string, unknown>)['secret'];
      ctx.check('secret field', 'finding', 'secret: whsec_...', typeof secret === 'string' && secret.startsWith('whsec_') ? 'secret: whsec_...' : `secret: ${typeof secret}`);
      try {
        const { conversion } = await newConversion(ctx, 'offramp');
        await ctx.step('deposit helper, settle true', () => ctx.client.testHelpers.conversions.simulateOfframpDeposit(conversion.id, { settle: true }));
        const read = ctx.received();
        if (read === undefined) {
          // Only the platform's delivery records can tell; their field names are not shown.
          const deliveries = await waitFor(ctx, async () => {
            const page = await ctx.client.webhookEndpoints.listDeliveries(endpoint.id).then((p) => p);
            return page.data.length >= 2 ? page.data : undefined;
          });
          ctx.expectTrue('deliveries recorded', 'at least 2 (created, completed)', deliveries !== undefined, String(deliveries?.length ?? 0));
          if (deliveries?.[0] !== undefined) ctx.note('delivery record fields', Object.keys(deliveries[0]).sort().join(', '));
          return;
        }
        const mine = await waitFor(ctx, async () => {
          const all = await (ctx.received() as Promise<ReceivedWebhook[]>);
          const ours = all.filter((d) => eventOf(d).objectId === conversion.id);
          return ours.some((d) => eventOf(d).type === 'conversion.completed') ? ours : undefined;
        });
        if (mine === undefined) {
          ctx.check('deliveries received', 'promise', 'conversion.created, conversion.completed', 'not within the wait', false);
          return;
        }
        const types = mine.map((d) => String(eventOf(d).type));
        ctx.expectEqual('event sequence', 'conversion.created, conversion.completed', types.filter((t) => t.startsWith('conversion.')).join(', '));
        for (const delivery of mine) {
          const type = String(eventOf(delivery).type);
          const id = header(delivery.headers, /event-id$/i);
          ctx.expectTrue(`${type}: event id header`, 'X-<maker>-Event-Id', id !== undefined, id?.[0] ?? 'absent');
          const signature = header(delivery.headers, /signature$/i);
          ctx.check(`${type}: signature header name`, 'finding', 'x-service-signature', signature?.[0] ?? 'absent');
          let verified = 'no signature header';
          if (signature !== undefined && typeof secret === 'string') {
            verified = await verifySignature(delivery.body, signature[1], secret).then(() => 'verifies', (error: unknown) => `does not verify (${(error as { reason?: string }).reason ?? String(error)})`);
          }
          ctx.expectEqual(`${type}: signature`, 'verifies', verified);
        }
      } finally {
        await ctx.client.webhookEndpoints.delete(endpoint.id).catch(() => undefined);
      }
    },
  },
];

async function waitFor<T>(ctx: { webhookWaitMs: number; sleep(ms: number): Promise<void> }, probe: () => Promise<T | undefined>): Promise<T | undefined> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - started >= ctx.webhookWaitMs) return undefined;
    await ctx.sleep(Math.min(250, ctx.webhookWaitMs));
  }
}
