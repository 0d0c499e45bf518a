// A webhook receiver on Node's `http` module: read the raw body, verify the signature, dedupe on
// the event id, answer 2xx fast. The sandbox delivers to it over real HTTP here.
// (Express: `app.post(path, express.raw({ type: 'application/json' }), handler)` and pass `req.body`.)
// Run: npx tsx examples/webhook-receiver.ts
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PixUsdt } from 'pix-usdt';
import { createSandbox } from 'pix-usdt/sandbox';
import { DuplicateEventError, WebhookVerificationError, constructEvent } from 'pix-usdt/webhooks';

const seen = new Set<string>(); // use your database in production
let secret = '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', async () => {
    try {
      // The raw bytes, exactly as received: a parsed and re-serialized body would not verify.
      const event = await constructEvent(Buffer.concat(chunks), req.headers, secret, { seen });
      console.log(`received ${event.type} ${event.id}: verified`);
      res.writeHead(204).end();
    } catch (error) {
      if (error instanceof DuplicateEventError) return void res.writeHead(200).end(); // already handled
      const reason = error instanceof WebhookVerificationError ? error.reason : 'error';
      console.log(`refused a delivery: ${reason}`);
      res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: reason }));
    }
  });
});
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
secret = endpoint.secret;

const user = await client.users.create({ external_id: 'receiver-example', name: 'Rita Lima', document_type: 'cpf', document_number: '111.444.777-35' });
await client.testHelpers.users.kyc(user.id, { status: 'approved' });
await sandbox.webhooks.flush();

// A forged delivery is refused.
const forged = await fetch(local, { method: 'POST', headers: { 'content-type': 'application/json', 'X-Service-Signature': 't=1,v1=00' }, body: '{}' });
console.log(`forged delivery answered ${forged.status}`);

const deliveries = await client.webhookEndpoints.listDeliveries(endpoint.id);
console.log(`deliveries: ${deliveries.data.map((d) => `${d.event_type}=${d.status}`).join(', ')}`);
server.close();
