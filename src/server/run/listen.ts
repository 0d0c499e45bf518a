/**
 * `listen`: a local receiver registered as a webhook endpoint of the server, forwarding each
 * delivery to `--forward-to` as it came (raw body, `X-Service-*` headers) and answering the
 * sandbox with the status of the partner's receiver.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PixUsdt, WebhookEndpointWithSecret } from '../../index.js';
import type { ListenOptions } from '../commands/listen.js';
import { generateSelfSigned } from '../http/tls.js';
import { EXIT, type Io, clientOf, fail, print } from './io.js';

const MAX_BODY_BYTES = 1_000_000;
const MAX_ANSWER_BYTES = 4096;
/** Under the sandbox's 10 s per attempt, so that a slow receiver is reported as ours (504), not a transport error. */
const FORWARD_TIMEOUT_MS = 9000;

/** What happened to one delivery. */
interface Forwarded {
  eventType: string;
  eventId: string;
  status: number | null;
  latencyMs: number;
  error: string | null;
}

function readBody(req: http.IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.once('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.once('error', () => resolve(null));
  });
}

/** The headers forwarded: the signature and event id (`x-service-*`) and the content type, as received. */
function forwardedHeaders(req: http.IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] as string;
    const lower = name.toLowerCase();
    if (lower.startsWith('x-service-') || lower === 'content-type') headers[name] = req.rawHeaders[i + 1] as string;
  }
  return headers;
}

function describeEvent(body: Buffer): { eventType: string; eventId: string } {
  try {
    const event = JSON.parse(body.toString('utf8')) as { type?: unknown; id?: unknown };
    return { eventType: typeof event.type === 'string' ? event.type : '?', eventId: typeof event.id === 'string' ? event.id : '?' };
  } catch {
    return { eventType: '?', eventId: '?' };
  }
}

/** Forwards one delivery and answers the sandbox with what the partner's receiver answered. */
async function forward(req: http.IncomingMessage, res: http.ServerResponse, forwardTo: string): Promise<Forwarded | null> {
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return null;
  }
  const body = await readBody(req);
  if (body === null) {
    res.writeHead(413).end();
    return null;
  }
  const { eventType, eventId } = describeEvent(body);
  const started = performance.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const answer = await fetch(forwardTo, {
      method: 'POST',
      headers: forwardedHeaders(req),
      body: new Uint8Array(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    status = answer.status;
    const text = (await answer.text()).slice(0, MAX_ANSWER_BYTES);
    res.writeHead(status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' }).end(text);
  } catch (cause) {
    const e = cause as Error & { cause?: { code?: string } };
    error = e.name === 'TimeoutError' ? `no answer within ${FORWARD_TIMEOUT_MS} ms` : (e.cause?.code ?? e.message);
    // The sandbox records this as the receiver's failure and retries on its schedule.
    res.writeHead(error.startsWith('no answer') ? 504 : 502, { 'content-type': 'text/plain' }).end(`pix-usdt-sandbox listen could not reach ${forwardTo}: ${error}`);
  }
  return { eventType, eventId, status, latencyMs: Math.round(performance.now() - started), error };
}

/** A receiver on a free loopback port: plain HTTP, or HTTPS with a session certificate. */
async function startReceiver(secure: boolean, onRequest: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = secure ? https.createServer(await generateSelfSigned('127.0.0.1'), onRequest) : http.createServer(onRequest);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `${secure ? 'https' : 'http'}://127.0.0.1:${port}/` };
}

function refusesUrl(error: unknown): boolean {
  const e = error as { status?: number; details?: { issues?: Array<{ path: string }> } };
  return e.status === 400 && (e.details?.issues ?? []).some((issue) => issue.path === 'url');
}

/**
 * Registers the receiver. Plain http first; a server that accepts only https endpoints (before
 * loopback http was allowed) gets an https receiver with a self-signed certificate, which it
 * reaches when started with `--insecure-webhooks`.
 */
async function register(
  client: PixUsdt,
  options: ListenOptions,
  onRequest: http.RequestListener,
): Promise<{ server: http.Server; url: string; endpoint: WebhookEndpointWithSecret }> {
  const description = `pix-usdt-sandbox listen -> ${options.forwardTo}`.slice(0, 500);
  for (const secure of [false, true]) {
    const receiver = await startReceiver(secure, onRequest);
    try {
      const endpoint = await client.webhookEndpoints.create({ url: receiver.url, event_types: options.events, description });
      return { ...receiver, endpoint };
    } catch (error) {
      receiver.server.close();
      if (secure || !refusesUrl(error)) throw error;
    }
  }
  throw new Error('unreachable');
}

/**
 * Runs `listen` until SIGINT or SIGTERM, or until the process that started it is gone (as
 * `serve`: `npx` does not always pass a signal on), then deletes the endpoint. A second signal
 * while deleting gives up at once.
 */
export async function runListen(options: ListenOptions, io: Io): Promise<number> {
  const client = clientOf(options);
  let endpointId = '';
  const onRequest: http.RequestListener = (req, res) => {
    void forward(req, res, options.forwardTo).then(async (done) => {
      if (done === null) return;
      // The delivery's id, for `resend`: the attempt is recorded once answered; the delivery exists before.
      const deliveryId = await client.webhookEndpoints
        .listDeliveries(endpointId, { event_id: done.eventId, limit: 1 })
        .then((page) => page.data[0]?.id ?? null)
        .catch(() => null);
      const outcome = done.status === null ? `error (${done.error})` : String(done.status);
      print(
        io,
        options,
        { kind: 'delivery', event_type: done.eventType, event_id: done.eventId, delivery_id: deliveryId, status: done.status, latency_ms: done.latencyMs, error: done.error },
        `${new Date().toISOString()}  ${done.eventType}  ${done.eventId}  -> ${outcome}  ${done.latencyMs} ms${deliveryId === null ? '' : `  (${deliveryId})`}`,
      );
    });
  };
  let registered;
  try {
    registered = await register(client, options, onRequest);
  } catch (error) {
    return fail(io, options, error, 'cannot register the webhook endpoint', { kind: 'error' });
  }
  const { server, url, endpoint } = registered;
  endpointId = endpoint.id;
  // Listening for the signals before the ready line: a caller may send one as soon as it reads it.
  let stopping = false;
  const stopped = new Promise<string>((resolve) => {
    io.onStop((why) => {
      if (!stopping) {
        stopping = true;
        resolve(why);
        return;
      }
      // The parent watch says so again every half second; a second Ctrl-C gives up deleting.
      if (why !== 'SIGINT' && why !== 'SIGTERM') return;
      io.stderr(`pix-usdt-sandbox: ${why} again: exiting; the endpoint ${endpoint.id} may stay registered`);
      io.exit(EXIT.failure);
    });
  });
  print(
    io,
    options,
    { kind: 'ready', endpoint_id: endpoint.id, secret: endpoint.secret, receiver_url: url, forward_to: options.forwardTo, events: options.events },
    [
      `Forwarding the webhooks of ${options.url} to ${options.forwardTo} (events: ${options.events.join(', ')}).`,
      `Webhook signing secret: ${endpoint.secret}`,
      `(endpoint ${endpoint.id} at ${url}; Ctrl-C deletes it)`,
    ].join('\n'),
  );
  const why = await stopped;
  server.close();
  server.closeAllConnections();
  try {
    await client.webhookEndpoints.delete(endpoint.id);
  } catch (error) {
    fail(io, options, error, `${why}: could not delete the endpoint ${endpoint.id}`, { kind: 'error', endpoint_id: endpoint.id });
    return EXIT.failure;
  }
  io.stderr(`pix-usdt-sandbox: ${why}, endpoint ${endpoint.id} deleted`);
  return EXIT.ok;
}
