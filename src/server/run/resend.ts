/**
 * `resend`: queues new attempts of webhook deliveries.
 * @module
 */
import type { PixUsdt, WebhookDelivery } from '../../index.js';
import type { ResendOptions } from '../commands/resend.js';
import { EXIT, type Io, clientOf, describeFailure, fail, print } from './io.js';

function record(d: WebhookDelivery): Record<string, unknown> {
  return { kind: 'resent', delivery_id: d.id, event_id: d.event_id, event_type: d.event_type, endpoint_id: d.webhook_endpoint_id, status: d.status };
}

function text(d: WebhookDelivery): string {
  return `resent ${d.id}  ${d.event_type}  ${d.event_id}  -> ${d.status}`;
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
      const d = await client.webhookDeliveries.redeliver(options.deliveryId);
      print(io, options, record(d), text(d));
      return EXIT.ok;
    } catch (error) {
      return fail(io, options, error, `resend ${options.deliveryId}`, { kind: 'failed', delivery_id: options.deliveryId });
    }
  }
  let failed: WebhookDelivery[];
  try {
    failed = await failedDeliveries(client);
  } catch (error) {
    return fail(io, options, error, 'resend --failed: listing the deliveries');
  }
  if (failed.length === 0) io.stderr('pix-usdt-sandbox: no failed delivery to resend.');
  else io.stderr(`pix-usdt-sandbox: resending ${failed.length} failed ${failed.length === 1 ? 'delivery' : 'deliveries'}`);
  let code: number = EXIT.ok;
  // With --json, one array once done (`[]` when nothing failed): a script parses one document.
  const resent: Array<Record<string, unknown>> = [];
  for (const delivery of failed) {
    try {
      const d = await client.webhookDeliveries.redeliver(delivery.id);
      if (options.json) resent.push(record(d));
      else io.stdout(text(d));
    } catch (error) {
      // With --json, in the one array: a failed redelivery is a record with its error.
      const described = describeFailure(options, error, `resend ${delivery.id}`);
      io.stderr(described.text);
      if (options.json) resent.push({ kind: 'failed', delivery_id: delivery.id, ok: false, error: described.failure });
      code = Math.max(code, described.exit);
    }
  }
  if (options.json) io.stdout(JSON.stringify(resent));
  return code;
}
