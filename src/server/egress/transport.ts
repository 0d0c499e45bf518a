/**
 * The egress room: the server's webhook deliveries leave through here (this transport) and go
 * only where the policy allows (destinations.ts).
 *
 * Webhook deliveries over the network: one real HTTPS POST per attempt (`node:https`), with a
 * time limit, to the destinations {@link DeliveryPolicy} allows. The sandbox signs the body and
 * records the outcome; this only carries it. Connections come from agents of its own, capped
 * like the sandbox's attempts (issue 21: with the global agent, hanging receivers held 5,494
 * sockets open): kept alive between attempts, never more than `maxSockets` to one origin nor
 * `maxTotalSockets` in all, idle ones included.
 * @module
 */
import type { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { WebhookRequest, WebhookResponse, WebhookTransportContext } from '../../sandbox/index.js';
import { type DeliveryEnvironment, DeliveryPolicy, DeliveryRefusedError, type Destination } from './destinations.js';

/**
 * The sandbox's `WebhookTransport` (its types, from `pix-usdt/sandbox`), with the context optional
 * (a call outside a sandbox has no signal) and a `close` for the server's stop.
 */
export type HttpWebhookTransport = ((request: WebhookRequest, context?: Partial<WebhookTransportContext>) => Promise<WebhookResponse>) & {
  /** Closes every connection it holds (the server's stop). */
  close(): void;
};

/** Options of {@link createHttpsTransport}. */
export interface HttpsTransportOptions {
  /** `sandbox` (default): loopback receivers over http or self-signed https. `production`: https only. */
  environment?: DeliveryEnvironment;
  /** Accept unverifiable certificates of any receiver (loopback receivers need no flag in the sandbox environment). Default false. */
  insecure?: boolean;
  /** Internal addresses (CIDR ranges, addresses) or host names deliveries may go to anyway (`--webhook-allow`). */
  allow?: readonly string[];
  /** Name resolution (default `dns.lookup`); every address it gives is checked before connecting. */
  lookup?: typeof dnsLookup;
  /** Time limit of one attempt, connection to last byte, in ms (default 10,000). */
  timeoutMs?: number;
  /** At most this many bytes of the receiver's answer are kept (default 4,096). */
  maxResponseBytes?: number;
  /** Open connections to one origin, at most (default: `maxTotalSockets`). */
  maxSockets?: number;
  /** Open connections in all, idle keep-alive ones included, at most (default 256, the sandbox's cap of attempts in flight). */
  maxTotalSockets?: number;
}

/** An idle kept-alive connection is closed after this. */
const IDLE_SOCKET_MS = 4_000;

const USER_AGENT = 'pix-usdt-sandbox (webhooks)';

/**
 * A transport that POSTs to `https:` URLs, and in the sandbox environment to `http:` URLs of
 * loopback hosts (a receiver on the same machine), never to an internal address that `allow`
 * does not name. Redirects are not followed: a 3xx is the receiver's answer.
 */
export function createHttpsTransport(options: HttpsTransportOptions = {}): HttpWebhookTransport {
  const maxTotalSockets = options.maxTotalSockets ?? 256;
  const sockets = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxTotalSockets, maxSockets: Math.min(options.maxSockets ?? maxTotalSockets, maxTotalSockets), maxFreeSockets: 4 };
  const agents = { http: new http.Agent(sockets), https: new https.Agent(sockets) };
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxResponseBytes ?? 4096;
  const policy = new DeliveryPolicy({
    environment: options.environment ?? 'sandbox',
    insecure: options.insecure === true,
    allow: options.allow ?? [],
  });
  const send = (request: WebhookRequest, context: Partial<WebhookTransportContext> = {}): Promise<WebhookResponse> => {
    // The sandbox's close aborts an attempt in flight; the listener leaves with the attempt.
    let forget = (): void => undefined;
    return new Promise<WebhookResponse>((resolve, reject) => {
      let url: URL;
      let destination: Destination;
      try {
        url = new URL(request.url);
        destination = policy.destination(url);
      } catch (error) {
        reject(error instanceof DeliveryRefusedError ? error : new Error('Invalid webhook URL.'));
        return;
      }
      // An address in the URL is not looked up: it is checked here, before any connection.
      const literal = isIP(destination.host) === 0 ? null : policy.refusal(destination, destination.host);
      if (literal !== null) {
        reject(new DeliveryRefusedError(literal));
        return;
      }
      const secure = destination.secure;
      const body = Buffer.from(request.body, 'utf8');
      const headers = {
        'user-agent': USER_AGENT,
        'content-type': 'application/json',
        ...request.headers,
        'content-length': String(body.length),
      };
      const settle = { done: false };
      let req: http.ClientRequest | undefined;
      const fail = (error: Error): void => {
        if (settle.done) return;
        settle.done = true;
        clearTimeout(timer);
        req?.destroy();
        reject(error);
      };
      const onResponse = (res: http.IncomingMessage): void => {
        const chunks: Buffer[] = [];
        let size = 0;
        const answer = (): void => {
          if (settle.done) return;
          settle.done = true;
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        };
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk.subarray(0, maxBytes - size));
          size += Math.min(chunk.length, maxBytes - size);
          // The status is the answer; the rest of a long body is not read (a receiver answering
          // 100 MB, or forever, must not hold memory or the attempt): stop, and drop the connection.
          if (size >= maxBytes) {
            answer();
            res.destroy();
          }
        });
        res.once('end', answer);
        res.once('error', (error) => fail(error));
      };
      // One deadline for the whole attempt (a socket timeout alone restarts on every byte).
      const timer = setTimeout(() => fail(new Error(`Webhook attempt timed out after ${timeoutMs} ms.`)), timeoutMs);
      const { signal } = context;
      const onAbort = (): void => fail(new Error('Webhook attempt aborted.'));
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      forget = () => signal?.removeEventListener('abort', onAbort);
      const tls = secure ? { rejectUnauthorized: destination.verify } : {};
      const lookup = policy.lookup(destination, options.lookup);
      try {
        req = (secure ? https.request : http.request)(url, { method: 'POST', headers, lookup, agent: secure ? agents.https : agents.http, ...tls }, onResponse);
      } catch (error) {
        // e.g. a header value Node refuses
        fail(new Error(`Webhook attempt failed: ${(error as NodeJS.ErrnoException).code ?? 'invalid request'}`));
        return;
      }
      req.once('error', (error: NodeJS.ErrnoException) =>
        fail(error instanceof DeliveryRefusedError ? error : new Error(`Webhook attempt failed: ${error.code ?? error.message}`)),
      );
      req.end(body);
    }).finally(() => forget());
  };
  return Object.assign(send, {
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  });
}
