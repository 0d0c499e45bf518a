/**
 * The inspector on the server: `/_inspector/` (outside `/v1`, so it cannot collide with the API)
 * served by `sandbox.inspector.fetch`, answers streamed (the live feed is server-sent events).
 * Loopback only: the console acts with the tenants' keys, so a request from any other address
 * is refused even when the server listens on every interface.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { Sandbox } from '../../sandbox/index.js';
import { writeEnvelope } from './listener.js';

/** The path the server serves the inspector under. */
export const INSPECTOR_PATH = '/_inspector/';

/** Whether a request's path is the inspector's. */
export function isInspectorPath(url: string | undefined): boolean {
  const path = (url ?? '').split('?')[0] ?? '';
  return path === INSPECTOR_PATH.slice(0, -1) || path.startsWith(INSPECTOR_PATH);
}

/** Whether an address is the loopback interface (IPv4, IPv6 or IPv4-mapped). */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  return address === '::1' || /^(::ffff:)?127\./.test(address);
}

/** Whether a `Host` header names the loopback interface (a rebound DNS name does not). */
export function isLoopbackHost(host: string | undefined): boolean {
  const name = (host ?? '').toLowerCase().replace(/:\d+$/, '');
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Answers one inspector request from `sandbox.inspector.fetch`. */
export async function serveInspector(sandbox: Sandbox, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!isLoopback(req.socket.remoteAddress) || !isLoopbackHost(req.headers.host)) {
    writeEnvelope(res, { status: 403, code: 'forbidden', message: 'The inspector answers loopback clients only, at a loopback host name: open it on the machine that runs the server.' });
    return;
  }
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
    writeEnvelope(res, { status: 400, code: 'validation_error', message: 'The request is malformed.' });
    return;
  }
  const response = await sandbox.inspector.fetch(request);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (response.body === null || method === 'HEAD') {
    res.end();
    return;
  }
  if (headers['content-type'] === 'text/event-stream') req.socket.setTimeout(0);
  Readable.fromWeb(response.body as unknown as NodeReadableStream<Uint8Array>)
    .on('error', () => res.destroy())
    .pipe(res);
}
