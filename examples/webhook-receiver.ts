// A webhook receiver on Node's `http` module with the receiver kit: it reads the raw body,
// verifies the signature, processes each event once (a duplicate is acknowledged without running
// the handler; a handler that throws answers 500, and the platform's retry runs it again) and
// answers fast. The sandbox delivers to it over real HTTP here.
// (Express: `expressWebhook(app, path, handler)`; Fastify: `app.register(fastifyWebhook, { path, handler })`.)
// Run: npx tsx examples/webhook-receiver.ts
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { type WebhookAnswer, createWebhookHandler, toNodeHandler } from 'pix-usdt/webhooks/receiver';

// Set once the endpoint exists (its secret is known then).
let receive: (req: IncomingMessage, res: ServerResponse) => Promise<void> = async (_req, res) => void res.writeHead(503).end();
const server = createServer((req, res) => void receive(req, res));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;

// The sandbox sends its deliveries over HTTP to the local receiver (the endpoint URL is https).
const sandbox = createSandbox({
  webhookTransport: async ({ headers, body }) => {
    const answer = await fetch(local, { method: 'POST', headers, body });
    return { status: answer.status, body: await answer.text() };
  },
});
const client = new PixUsdt({ apiKey: sandbox.apiKey, fetch: sandbox.fetch });
const endpoint = await client.webhookEndpoints.create({ url: 'https://partner.example/webhooks', event_types: ['user.kyc_pending', 'user.kyc_approved'] });

let duplicates = 0;
receive = toNodeHandler(
  createWebhookHandler({
    secret: endpoint.secret,
    // The in-memory store suits one process. With a database, createSqlEventStore({ db }) commits
    // the "processed" mark in the same transaction as the handler's writes (docs/integration.md).
    onEvent: (event) => console.log(`received ${event.type} ${event.id}: verified`),
    onAnswer: (answer: WebhookAnswer) => {
      if (answer.outcome === 'invalid') console.log(`refused a delivery: ${answer.reason}`);
      if (answer.outcome === 'duplicate') duplicates += 1;
    },
  }),
);

const user = await client.users.create({ external_id: 'receiver-example', name: 'Rita Lima', document_type: 'cpf', document_number: '111.444.777-35' });
await client.testHelpers.users.kyc(user.id, { status: 'approved' });
await sandbox.webhooks.flush();

// A forged delivery is refused.
const forged = await fetch(local, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-Signature': 't=1,v1=00' }, body: '{}' });
console.log(`forged delivery answered ${forged.status}`);

// The same event again (a redelivery): acknowledged, not processed twice.
const first = (await client.webhookEndpoints.listDeliveries(endpoint.id)).data[0];
if (first) {
  await client.webhookDeliveries.redeliver(first.id);
  await sandbox.webhooks.flush();
  console.log(`redelivered ${first.event_type}: ${duplicates === 1 ? 'acknowledged as a duplicate, not processed again' : 'processed again!'}`);
}

const deliveries = await client.webhookEndpoints.listDeliveries(endpoint.id);
console.log(`deliveries: ${deliveries.data.map((d) => `${d.event_type}=${d.status}`).join(', ')}`);
server.close();
