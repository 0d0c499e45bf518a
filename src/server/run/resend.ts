/**
 * `resend`: queues new attempts of webhook deliveries.
 * @module
 */
import type { PixUsdt, WebhookDelivery } from '../../index.js';
import type { ResendOptions } from '../commands/resend.js';
import { EXIT, type Io, clientOf, fail, print } from './io.js';

function report(io: Io, options: ResendOptions, d: WebhookDelivery): void {
  print(io, options, { kind: 'resent', delivery_id: d.id, event_id: d.event_id, event_type: d.event_type, endpoint_id: d.webhook_endpoint_id, status: d.status }, `resent ${d.id}  ${d.event_type}  ${d.event_id}  -> ${d.status}`);
}

/** Every failed delivery of every endpoint of the key's tenant. */
async function failedDeliveries(client: PixUsdt): Promise<WebhookDelivery[]> {
  const failed: WebhookDelivery[] = [];
  for await (const endpoint of client.webhookEndpoints.list({ limit: 100 })) {
    for await (const delivery of client.webhookEndpoints.listDeliveries(endpoint.id, { status: 'failed', limit: 100 })) failed.push(delivery);
  }
  return failed;
}

/** Runs `resend`. */
export async function runResend(options: ResendOptions, io: Io): Promise<number> {
  const client = clientOf(options);
  if (!options.failed) {
    try {
      report(io, options, await client.webhookDeliveries.redeliver(options.deliveryId));
      return EXIT.ok;
    } catch (error) {
      return fail(io, options, error, `resend ${options.deliveryId}`);
    }
  }
  let failed: WebhookDelivery[];
  try {
    failed = await failedDeliveries(client);
  } catch (error) {
    return fail(io, options, error, 'resend --failed: listing the deliveries');
  }
  if (failed.length === 0) io.stderr('pix-usdt-sandbox: no failed delivery to resend.');
  let code: number = EXIT.ok;
  for (const delivery of failed) {
    try {
      report(io, options, await client.webhookDeliveries.redeliver(delivery.id));
    } catch (error) {
      code = Math.max(code, fail(io, options, error, `resend ${delivery.id}`));
    }
  }
  return code;
}
