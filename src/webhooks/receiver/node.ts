/**
 * The webhook handler on Node's `http` module (and on frameworks built on it): the raw body read
 * from the request stream, or taken from where a body parser left it (`req.rawBody`, a `Buffer`
 * `req.body`). Structural types only: no `node:*` import, so this entry still loads in browsers.
 * @module
 */
import { concat, type WebhookAnswer, type WebhookHandler } from './handler.js';

/** What the adapters read of Node's `IncomingMessage` (Express's and Next.js's requests are ones). */
export interface NodeRequestLike extends AsyncIterable<unknown> {
  /** The HTTP method. */
  method?: string | undefined;
  /** The headers, lowercase names. */
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** True once the body stream has been read to its end (by a body parser, say). */
  readableEnded?: boolean;
  /** Where a parser put the body (`express.raw` leaves a `Buffer`, `express.json` an object). */
  body?: unknown;
  /** Where a parser kept the raw bytes (`express.json({ verify: keepRawBody })`, fastify-raw-body, Firebase). */
  rawBody?: unknown;
}

/** What the adapters use of Node's `ServerResponse`. */
export interface NodeResponseLike {
  /** The answer's status. */
  statusCode: number;
  /** Sets one header. */
  setHeader(name: string, value: string): unknown;
  /** Sends the body and ends the answer. */
  end(body?: string): unknown;
}

/** The raw body of a request, or why there is none. */
export type RawBodyResult = { ok: true; body: Uint8Array | string } | { ok: false; tooLarge: boolean; body?: unknown };

function isRaw(value: unknown): value is Uint8Array | string {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/**
 * @internal The raw body: kept by a parser (`rawBody`, or a `Buffer`/string `body`), or read from
 * the stream when nobody read it. A stream read by a parser that kept nothing gives `ok: false`
 * with the parsed body (the handler answers it as `misconfigured`, with the fix).
 */
export async function readRawBody(req: NodeRequestLike, limit: number): Promise<RawBodyResult> {
  if (isRaw(req.rawBody)) return { ok: true, body: req.rawBody };
  if (isRaw(req.body)) return { ok: true, body: req.body };
  // Read to its end by someone who kept no bytes (a JSON parser): only the parsed body is left.
  if (req.readableEnded === true) return { ok: false, tooLarge: false, body: req.body ?? undefined };
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  if (declared > limit) return { ok: false, tooLarge: true };
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of req) {
    const bytes = typeof chunk === 'string' ? new TextEncoder().encode(chunk) : (chunk as Uint8Array);
    size += bytes.byteLength;
    if (size > limit) return { ok: false, tooLarge: true };
    chunks.push(bytes);
  }
  return { ok: true, body: concat(chunks, size) };
}

/** @internal The answer for a request whose raw body could not be had. */
export function answerWithout(handler: WebhookHandler, req: NodeRequestLike, raw: Extract<RawBodyResult, { ok: false }>): Promise<WebhookAnswer> {
  if (raw.tooLarge) {
    return Promise.resolve({ status: 413, headers: { 'content-type': 'application/json' }, body: '{"error":"payload_too_large"}', outcome: 'too_large' });
  }
  // The handler refuses a parsed or absent body with `misconfigured` (500, so the platform retries once the route is fixed).
  return handler.handle({ body: raw.body, headers: req.headers, method: req.method });
}

/**
 * @internal The handler's answer to a Node request: another method than POST is answered without
 * reading the body; a POST with its raw body, or with why there is none. Rejects when the request
 * stream fails (the sender went away mid-body).
 */
export async function answerNodeRequest(handler: WebhookHandler, req: NodeRequestLike): Promise<WebhookAnswer> {
  if (req.method !== undefined && req.method.toUpperCase() !== 'POST') return handler.handle({ body: '', headers: req.headers, method: req.method });
  const raw = await readRawBody(req, handler.maxBodyBytes);
  return raw.ok ? handler.handle({ body: raw.body, headers: req.headers }) : answerWithout(handler, req, raw);
}

/** @internal Writes an answer on a Node response. */
export function send(res: NodeResponseLike, result: WebhookAnswer): void {
  res.statusCode = result.status;
  for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
  res.end(result.body);
}

/**
 * The handler as a Node `http` request listener: `createServer(toNodeHandler(handler))`, or
 * mounted on a path by your router. Reads the raw body from the request (at most
 * `maxBodyBytes`), or takes the bytes a parser kept (`req.rawBody`, a `Buffer` `req.body`).
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * const listen = toNodeHandler(createWebhookHandler({ secret, onEvent }));
 * createServer((req, res) => (req.url === '/webhooks/pix-usdt' ? listen(req, res) : res.writeHead(404).end())).listen(3000);
 * ```
 */
export function toNodeHandler(handler: WebhookHandler): (req: NodeRequestLike, res: NodeResponseLike) => Promise<void> {
  return async (req, res) => {
    let result: WebhookAnswer;
    try {
      result = await answerNodeRequest(handler, req);
    } catch {
      // The request stream failed (the sender went away mid-body): nothing was processed.
      result = { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"incomplete_request"}', outcome: 'invalid' };
    }
    send(res, result);
  };
}
