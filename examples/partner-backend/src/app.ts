// The HTTP face of the partner backend (Fastify): the partner's own API for its apps, and the
// webhook route mounted with the receiver kit's Fastify plugin (raw bytes, in its own scope).
import Fastify, { type FastifyInstance } from 'fastify';
import { isApiError } from 'pix-usdt';
import { brCodeToSvg } from 'pix-usdt/pix';
import { fastifyWebhook } from 'pix-usdt/webhooks/receiver';
import type { Backend, CreateOrderInput, CreateUserInput } from './backend.js';

const UUID = '^[0-9a-fA-F-]{36}$';
const AMOUNT = '^\\d{1,12}(\\.\\d{1,6})?$';

/** The path the platform delivers webhooks to. */
export const WEBHOOK_PATH = '/webhooks/pix-usdt';

export function buildApp(backend: Backend): FastifyInstance {
  const app = Fastify({ logger: false });

  // A platform refusal keeps its status and code; anything else is ours (500) or Fastify's (validation 400).
  app.setErrorHandler((error: Error & { statusCode?: number; validation?: unknown }, _request, reply) => {
    if (isApiError(error)) return reply.code(error.status >= 500 ? 502 : error.status).send({ error: error.code, message: error.message, request_id: error.requestId });
    const status = error.statusCode ?? 500;
    return reply.code(status).send({ error: status === 500 ? 'internal_error' : 'bad_request', message: error.message });
  });

  app.get('/health', async () => ({ ok: true }));

  app.post<{ Body: CreateUserInput }>(
    '/users',
    {
      schema: {
        body: {
          type: 'object',
          required: ['external_id', 'name', 'document_number'],
          additionalProperties: false,
          properties: { external_id: { type: 'string', minLength: 1, maxLength: 255 }, name: { type: 'string', minLength: 1 }, document_number: { type: 'string' }, email: { type: 'string' } },
        },
      },
    },
    async (request, reply) => reply.code(201).send(await backend.createUser(request.body)),
  );

  app.get<{ Params: { id: string } }>('/users/:id', async (request, reply) => (await backend.getUser(request.params.id)) ?? reply.code(404).send({ error: 'not_found' }));

  app.post<{ Body: CreateOrderInput }>(
    '/conversions',
    {
      schema: {
        body: {
          type: 'object',
          required: ['order_id', 'user_id', 'direction', 'amount'],
          additionalProperties: false,
          properties: {
            order_id: { type: 'string', pattern: UUID },
            user_id: { type: 'string', pattern: UUID },
            direction: { enum: ['onramp', 'offramp'] },
            amount: { type: 'string', pattern: AMOUNT },
            wallet_address: { type: 'string' },
            pix_key: { type: 'string' },
            pix_key_type: { enum: ['cpf', 'cnpj', 'email', 'phone', 'evp'] },
          },
        },
      },
    },
    async (request, reply) => reply.code(201).send(await backend.createOrder(request.body)),
  );

  app.get<{ Querystring: { status?: string } }>('/conversions', async (request) => ({ data: await backend.listConversions(request.query.status) }));

  app.get<{ Params: { id: string } }>('/conversions/:id', async (request, reply) => (await backend.getConversion(request.params.id)) ?? reply.code(404).send({ error: 'not_found' }));

  // The onramp's Pix QR code, to show the user (pix-usdt/pix renders the BR Code the platform issued).
  app.get<{ Params: { id: string } }>('/conversions/:id/pix-qr.svg', async (request, reply) => {
    const conversion = await backend.getConversion(request.params.id);
    const code = conversion?.['pix_qr_code'];
    if (typeof code !== 'string' || code === '') return reply.code(404).send({ error: 'no_pix_qr_code' });
    return reply.type('image/svg+xml').send(brCodeToSvg(code, { title: 'Pay with Pix' }));
  });

  app.post<{ Params: { id: string } }>('/conversions/:id/cancel', async (request) => backend.cancel(request.params.id));

  app.post('/admin/reconcile', async () => backend.reconcile());
  app.get('/admin/stats', async () => backend.stats());
  app.get('/ledger', async () => ({ data: (await backend.listLedger()) }));

  // The receiver kit's Fastify plugin: its own scope reads every body as raw bytes, so Fastify's
  // JSON parser keeps serving the routes above.
  void app.register(fastifyWebhook, { path: WEBHOOK_PATH, handler: backend.webhookHandler });
  return app;
}
