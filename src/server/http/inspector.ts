/**
 * The inspector on the server: `/_inspector/` (outside `/v1`, so it cannot collide with the API)
 * served by `sandbox.inspector.fetch` (web.ts). Loopback only: the console acts with the tenants'
 * keys, so a request from any other address, or naming another host (DNS rebinding), is refused
 * even when the server listens on every interface.
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLoopbackHost } from '../../client/options.js';
import type { Sandbox } from '../../sandbox/index.js';
import { ownAnswer, writeAnswer } from './listener.js';
import { serveWeb } from './web.js';

/** The path the server serves the inspector under. */
export const INSPECTOR_PATH = '/_inspector/';

/** Whether a request path (without its query) is the inspector's. */
export function isInspectorPath(path: string): boolean {
  return path === INSPECTOR_PATH.slice(0, -1) || path.startsWith(INSPECTOR_PATH);
}

/** The host name a `Host` header names (`localhost:4010` -> `localhost`, `[::1]:4010` -> `[::1]`); `''` when it names none. */
export function hostOf(header: string | undefined): string {
  try {
    return new URL(`http://${header ?? ''}`).hostname;
  } catch {
    return '';
  }
}

/** Whether a request comes from the loopback interface and names a loopback host. */
export function fromLoopback(req: IncomingMessage): boolean {
  return isLoopbackHost(req.socket.remoteAddress ?? '') && isLoopbackHost(hostOf(req.headers.host));
}

/** Answers one inspector request from `sandbox.inspector.fetch`. */
export function serveInspector(sandbox: Sandbox, origin: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (!fromLoopback(req)) {
    writeAnswer(res, ownAnswer({ status: 403, code: 'forbidden', message: 'The inspector answers loopback clients only, at a loopback host name: open it on the machine that runs the server.' }));
    return Promise.resolve();
  }
  return serveWeb(req, res, origin, (request) => sandbox.inspector.fetch(request));
}
