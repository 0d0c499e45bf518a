/**
 * The server's paths outside the API, served by web handlers of the sandbox: the inspector's
 * console (`sandbox.inspector.fetch`) and the request log's feed (`RequestLog.serveFeed`). The
 * Node request becomes a web `Request` (its body streamed) and the answer is streamed back, so
 * that server-sent events flow as they are written. Off the API's path, so the web types cost
 * nothing there; the API goes through the listener (listener.ts).
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ownAnswer, writeAnswer } from './listener.js';

/** Answers one request with `handler`; the request is aborted when its client goes away. */
export async function serveWeb(req: IncomingMessage, res: ServerResponse, origin: string, handler: (request: Request) => Response | Promise<Response>): Promise<void> {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  const method = (req.method ?? 'GET').toUpperCase();
  const init: RequestInit & { duplex?: 'half' } = { method, headers: req.headers as Record<string, string>, signal: controller.signal };
  if (method !== 'GET' && method !== 'HEAD') {
    init.body = Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>;
    init.duplex = 'half';
  }
  let request: Request;
  try {
    request = new Request(new URL(req.url ?? '/', origin), init);
  } catch {
    writeAnswer(res, ownAnswer({ status: 400, code: 'validation_error', message: 'The request is malformed.' }));
    return;
  }
  const response = await handler(request);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null || method === 'HEAD') {
    res.end();
    return;
  }
  // A live stream outlives the server's idle limits.
  if (headers['content-type'] === 'text/event-stream') req.socket.setTimeout(0);
  Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>)
    .on('error', () => res.destroy())
    .pipe(res);
}
