/**
 * The HTTP serving room (start, the Node listener, CORS, TLS, the inspector's mount, the paths
 * served by web handlers) opens here: {@link startServer} starts the sandbox behind a Node
 * HTTP(S) server and stops it gracefully. What it serves: the
 * API through the listener (listener.ts), the inspector's console at `/_inspector/`
 * (inspector.ts) and the request log's feed at `/_sandbox/logs` (the sandbox's `RequestLog`,
 * through web.ts). It takes its own options, {@link ServerOptions}, which hold the sandbox's
 * (`createSandbox`'s): the `serve` command builds them once from its flags.
 * @module
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { DEFAULT_DELIVERY_CONCURRENCY, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { LOG_FEED_PATH, type RequestLog } from '../../sandbox/http/request-log.js';
import { SandboxImpl } from '../../sandbox/sandbox.js';
import { type DataStore, openDataStore } from '../data/store.js';
import { createHttpsTransport } from '../egress/transport.js';
import { CorsPolicy } from './cors.js';
import { INSPECTOR_PATH, isInspectorPath, serveInspector } from './inspector.js';
import { createClientErrorHandler, createConnectHandler, createListener, ownAnswer, writeAnswer } from './listener.js';
import { type TlsMaterial, generateSelfSigned, readTlsFiles } from './tls.js';
import { serveWeb } from './web.js';

/** How long the server waits for a slow client, in ms. */
export interface ServerTimeouts {
  /** From the connection (or the previous answer) to the end of the request headers. */
  headersMs: number;
  /** From the start of a request to its last body byte. */
  requestMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveMs: number;
}

/** The documented limits (docs/server-and-msw.md). */
export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 };

/** Options of {@link startServer}. */
export interface ServerOptions {
  /** The port to listen on; 0 takes a free one. */
  port: number;
  /** The address to bind. Plain HTTP belongs on loopback: `serve` refuses another host without TLS. */
  host: string;
  /** HTTPS with these PEM files, or a certificate generated for the session (`'self-signed'`); absent: plain HTTP. */
  tls?: { certFile: string; keyFile: string } | 'self-signed';
  /** The sandbox's options, as `createSandbox` takes them (the server adds its webhook transport). */
  sandbox?: Omit<SandboxOptions, 'webhookTransport'>;
  /** Where webhook deliveries may go (egress/destinations.ts): receivers whose certificate cannot be verified, internal ranges or hosts allowed. */
  webhooks?: { insecure?: boolean; allow?: readonly string[] };
  /** Browser origins allowed besides loopback ones (`*` for any). */
  corsOrigins?: readonly string[];
  /** Keep the whole state in this folder across restarts (src/server/data/); absent: memory only. */
  data?: string | undefined;
  /** Overrides of {@link DEFAULT_TIMEOUTS} (tests use small values). */
  timeouts?: Partial<ServerTimeouts>;
}

/** A running server. */
export interface RunningServer {
  /** `http://127.0.0.1:4010`, with the real port. */
  url: string;
  /** The inspector's console: `http://127.0.0.1:4010/_inspector/` (loopback clients only). */
  inspectorUrl: string;
  sandbox: Sandbox;
  /** The sandbox's request log: every answered request, the server's own refusals included; `/_sandbox/logs` streams it. */
  requests: RequestLog;
  /** The operator's key of this start: the whole request log feed (`/_sandbox/logs`) with it; a tenant's key reads its own requests only. */
  controlKey: string;
  /** Stops accepting connections and resolves once the requests in flight are answered. */
  close(): Promise<void>;
  /** Drops every open connection at once (a second signal). */
  forceClose(): void;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` random letters and digits (rejection sampling: no bias). */
function base62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length)) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  }
  return out;
}

/** How the URL shows a host: IPv6 in brackets; an unspecified address as the loopback name. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** One stderr line of the request log, from an entry's fields (no entry object a request): `POST /v1/users 201 3.1ms req_...`. */
export function logLine(method: string, path: string, status: number, latencyMs: number, requestId: string): string {
  return `${method} ${path} ${status} ${tenths(latencyMs)}ms ${requestId}`;
}

/**
 * `ms.toFixed(1)` of a latency the log rounded to a tenth (a whole number of tenths, at least 0),
 * without `toFixed` (a line a request); anything else goes through `toFixed`.
 */
export function tenths(ms: number): string {
  const t = Math.round(ms * 10);
  if (!(t >= 0 && t < 1e15) || t / 10 !== ms) return ms.toFixed(1);
  const whole = Math.floor(t / 10);
  return `${whole}.${t - whole * 10}`;
}

function tlsMaterial(tls: ServerOptions['tls'], host: string): Promise<TlsMaterial | null> {
  if (tls === undefined) return Promise.resolve(null);
  return tls === 'self-signed' ? generateSelfSigned(host) : readTlsFiles(tls.certFile, tls.keyFile);
}

/** The start-up line of a data folder: new, restored, or imported from the old layout (the one line an import logs). */
function dataLine(store: DataStore): string {
  if (store.migrated === null) return `data in ${store.file} (${store.origin})`;
  const { entries, tornBytes, renamed } = store.migrated;
  const torn = tornBytes > 0 ? `, dropped a cut-short last journal line of ${tornBytes} bytes (a mutation never answered)` : '';
  return `data in ${store.file} (migrated: imported snapshot.json and ${entries} journal entries${torn}; the old files are kept as ${renamed.map((f) => f.slice(store.dir.length + 1)).join(' and ')}, to delete once no older pix-usdt needs them)`;
}

/** Creates the sandbox, listens, and resolves once the server accepts connections. `log` takes each stderr line. */
export async function startServer(options: ServerOptions, log: (line: string) => void): Promise<RunningServer> {
  const { host } = options;
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const cors = new CorsPolicy(options.corsOrigins ?? []);
  // Open sockets stay under the caps of attempts in flight (the sandbox's defaults).
  const transport = createHttpsTransport({
    environment: options.sandbox?.environment ?? 'sandbox',
    insecure: options.webhooks?.insecure === true,
    allow: options.webhooks?.allow ?? [],
    maxTotalSockets: DEFAULT_DELIVERY_CONCURRENCY.total,
  });
  const sandboxOptions: SandboxOptions = { ...options.sandbox, webhookTransport: transport };
  const tls = await tlsMaterial(options.tls, host);
  // Without --data nothing touches the disk. The sandbox options are the defaults of this start:
  // a restored tenant keeps what it set itself (its own price, limits, timings), the rest follows them.
  const store: DataStore | null = options.data === undefined ? null : openDataStore(options.data, sandboxOptions, { log });
  const sandbox: SandboxImpl = store?.sandbox ?? new SandboxImpl(sandboxOptions);
  if (store !== null) log(`pix-usdt-sandbox: ${dataLine(store)}`);
  // The console at /_inspector/ is there from the start, watching moves for its conversion pages.
  void sandbox.inspector;
  // The one request log: a line on stderr per answered request (reading it opens it).
  const requests = sandbox.requests;
  requests.subscribeFields((_at, requestId, _tenant, method, path, status, latency) => log(logLine(method, path, status, latency, requestId)));
  // The origin is only known once listening (port 0); the listener reads it then.
  let origin = '';
  let closing: Promise<void> | null = null;
  const api = createListener(sandbox, {
    get origin() {
      return origin;
    },
    closing: () => closing !== null,
    cors,
    strictParser: true,
  });
  // The feed's readers (docs/decisions.md): the control key reads every request (the
  // operator's); a tenant's live API key its own tenant's, so that no tenant sees another's ids.
  const access = { controlKey: `sk_control_${base62(32)}`, keyOwner: (authorization: string | null) => sandbox.keyOwner(authorization) };
  // What fails on the paths outside the API is still answered in the envelope, not dropped.
  const failed = (res: http.ServerResponse): void => {
    if (res.headersSent) res.destroy();
    else writeAnswer(res, ownAnswer({ status: 500, code: 'internal_error', message: 'An unexpected error occurred.' }));
  };
  const listener: http.RequestListener = (req, res) => {
    const url = req.url ?? '';
    // The feed and the console live under `/_`; an API path goes on without being split.
    if (url.charCodeAt(1) !== 95 /* _ */) return api(req, res);
    const path = url.split('?')[0] ?? '';
    if (path === LOG_FEED_PATH) void serveWeb(req, res, origin, (request) => requests.serveFeed(request, access)).catch(() => failed(res));
    else if (isInspectorPath(path)) void serveInspector(sandbox, origin, req, res).catch(() => failed(res));
    else api(req, res);
  };
  // Bounded waits for slow or stuck clients. Node checks them every `connectionsCheckingInterval`
  // (30 s by default, so a 10 s header limit bit after up to 40 s): check often enough that a
  // limit bites within a tenth of itself.
  const limits: http.ServerOptions = {
    // Node's strict parser, whatever `--insecure-http-parser` says: the listener relies on it (strictParser).
    insecureHTTPParser: false,
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 10))),
  };
  const server: http.Server = tls === null ? http.createServer(limits, listener) : https.createServer({ ...limits, cert: tls.cert, key: tls.key }, listener);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // What Node's parser and timers refuse gets the envelope too, and its line in the log.
  server.on('clientError', createClientErrorHandler({ log: requests, timeouts, cors }));
  server.on('connect', createConnectHandler(listener));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      store?.close();
      reject(error);
    });
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Due timers of every tenant (deposit windows, expiries, webhook retries) fire on time with no
  // request: the platform arms one real timer for the earliest (core/alarm.ts).
  origin = `${tls === null ? 'http' : 'https'}://${urlHost(host)}:${port}`;
  return {
    url: origin,
    inspectorUrl: `${origin}${INSPECTOR_PATH}`,
    sandbox,
    requests,
    controlKey: access.controlKey,
    close() {
      requests.closeFeeds();
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          // Every answer has left. No timer fires and no delivery leaves after this; attempts in
          // flight are aborted and stay pending (retried after a restart on the same data). Then
          // what waits is written and the write-ahead log emptied into the database.
          void sandbox
            .close()
            // A last write that fails is logged; the database's own close still runs.
            .catch((error: unknown) => log(`pix-usdt-sandbox: could not write what waited at the stop: ${(error as Error).message}`))
            .finally(() => {
              try {
                store?.close();
              } catch (error) {
                log(`pix-usdt-sandbox: could not close the database cleanly: ${(error as Error).message}`);
              } finally {
                transport.close();
                resolve();
              }
            });
        });
        // Keep-alive sockets with no request in flight would hold `close` open.
        server.closeIdleConnections();
      });
      return closing;
    },
    forceClose() {
      server.closeAllConnections();
    },
  };
}
