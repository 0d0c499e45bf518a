/**
 * Starts the sandbox behind a Node HTTP(S) server and stops it gracefully.
 * @module
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { DEFAULT_DELIVERY_CONCURRENCY, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { SandboxImpl } from '../../sandbox/sandbox.js';
import { INSPECTOR_PATH, isInspectorPath, serveInspector } from './inspector.js';
import { type RequestLogEntry, createClientErrorHandler, createConnectHandler, createListener, writeEnvelope } from './listener.js';
import type { ServeOptions } from '../commands/serve.js';
import { CorsPolicy } from './cors.js';
import { type DataStore, openDataStore } from '../data/store.js';
import { LOG_STREAM_PATH, type LogReader, RequestLog } from './log-feed.js';
import { type TlsMaterial, generateSelfSigned, readTlsFiles } from './tls.js';
import { createHttpsTransport } from '../egress/transport.js';

/** A running server. */
export interface RunningServer {
  /** `http://127.0.0.1:4010`, with the real port. */
  url: string;
  /** The inspector's console: `http://127.0.0.1:4010/_inspector/` (loopback clients only). */
  inspectorUrl: string;
  sandbox: Sandbox;
  /** The last requests answered, and the live feed of `logs tail`. */
  requests: RequestLog;
  /** The operator's key of this start: the whole request log feed (`/_sandbox/logs`) with it; a tenant's key reads its own requests only. */
  controlKey: string;
  /** Stops accepting connections and resolves once the requests in flight are answered. */
  close(): Promise<void>;
  /** Drops every open connection at once (a second signal). */
  forceClose(): void;
}

/** The line printed on stdout once listening. */
export interface ReadyLine {
  url: string;
  api_key: string;
  tenant_id: string;
  /** The inspector's console (an added key: the others stay). */
  inspector_url: string;
  /** The operator's key: `logs tail` with it streams every tenant's requests (an added key). */
  control_key: string;
}

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

/** Options of {@link startServer}: the command line's, plus what only code sets. */
export interface ServerOptions extends ServeOptions {
  /** Overrides of {@link DEFAULT_TIMEOUTS} (tests use small values). */
  timeouts?: Partial<ServerTimeouts>;
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

/** One log line: `POST /v1/users 201 3.1ms req_...`. */
export function formatLog(entry: RequestLogEntry): string {
  return `${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms ${entry.requestId}`;
}

async function tlsMaterial(options: ServeOptions): Promise<TlsMaterial | null> {
  if (!options.https) return null;
  if (options.cert !== undefined && options.key !== undefined) return readTlsFiles(options.cert, options.key);
  return generateSelfSigned(options.host);
}

/** The start-up line of a data folder: new, restored, or imported from the old layout (the one line an import logs). */
function dataLine(store: DataStore): string {
  if (store.migrated === null) return `data in ${store.file} (${store.origin})`;
  const { entries, tornBytes, renamed } = store.migrated;
  const torn = tornBytes > 0 ? `, dropped a cut-short last journal line of ${tornBytes} bytes (a mutation never answered)` : '';
  return `data in ${store.file} (migrated: imported snapshot.json and ${entries} journal entries${torn}; the old files are kept as ${renamed.map((f) => f.slice(store.dir.length + 1)).join(' and ')}, to delete once no older pix-usdt needs them)`;
}

/** Creates the sandbox, listens, and resolves once the server accepts connections. */
export async function startServer(options: ServerOptions, log: (line: string) => void): Promise<RunningServer> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const cors = new CorsPolicy(options.corsOrigins ?? []);
  // Open sockets stay under the caps of attempts in flight (the sandbox's defaults).
  const transport = createHttpsTransport({
    environment: options.environment,
    insecure: options.insecureWebhooks,
    allow: options.webhookAllow ?? [],
    maxTotalSockets: DEFAULT_DELIVERY_CONCURRENCY.total,
  });
  const sandboxOptions: SandboxOptions = { environment: options.environment, webhookTransport: transport };
  if (options.seed !== undefined) sandboxOptions.seed = options.seed;
  const { limits: limitFlags, ...settings } = options.settings ?? {};
  Object.assign(sandboxOptions, settings);
  if (limitFlags !== undefined) sandboxOptions.limits = limitFlags;
  if (options.sharedPlatformLimits === true) sandboxOptions.limits = { ...sandboxOptions.limits, platformScope: 'shared' };
  Object.assign(sandboxOptions, options.retention);
  const tls = await tlsMaterial(options);
  // Without --data nothing touches the disk.
  const store: DataStore | null = options.data === undefined ? null : openDataStore(options.data, sandboxOptions, { log });
  const sandbox: SandboxImpl = store?.sandbox ?? new SandboxImpl(sandboxOptions);
  // The console at /_inspector/ is there from the start: its request log and live paths too.
  void sandbox.inspector;
  if (store !== null) log(`pix-usdt-sandbox: ${dataLine(store)}`);
  // The setting flags are the defaults of this start: a restored tenant keeps what it set itself
  // (its own price, limits, timings survive a restart, kill -9 included), the rest follows them.
  // The origin is only known once listening (port 0); the listener reads it then.
  let origin = '';
  let closing: Promise<void> | null = null;
  // The server's log and the sandbox's (the inspector's) keep as many requests.
  const requests = new RequestLog(options.retention?.requestLogSize);
  // Every answered request: a line on stderr and an entry of the live log (`logs tail`).
  const record = (entry: RequestLogEntry): void => {
    log(formatLog(entry));
    requests.add({
      at: new Date().toISOString(),
      request_id: entry.requestId,
      method: entry.method,
      path: entry.path,
      status: entry.status,
      latency_ms: Math.round(entry.ms * 10) / 10,
      replayed: entry.replayed,
      fault: entry.fault,
      tenant_id: entry.tenantId,
    });
  };
  const tenantOf = (authorization: string | undefined): string | null => sandbox.keyOwner(authorization)?.tenantId ?? null;
  const api = createListener(sandbox, {
    get origin() {
      return origin;
    },
    log: record,
    closing: () => closing !== null,
    cors,
    tenantOf,
  });
  // The log feed: the control key reads every request (the operator's); a tenant's live API key
  // reads its own tenant's, so that no tenant sees another's ids (docs/decisions.md).
  const controlKey = `sk_control_${base62(32)}`;
  const control = Buffer.from(`Bearer ${controlKey}`);
  const authorize = (authorization: string | undefined): LogReader | null => {
    if (authorization === undefined) return null;
    const given = Buffer.from(authorization);
    if (given.length === control.length && timingSafeEqual(given, control)) return { all: true };
    const owner = sandbox.keyOwner(authorization);
    return owner === null ? null : { all: false, tenantId: owner.tenantId, live: owner.live };
  };
  // What fails on the paths outside the engine is still answered in the envelope, not dropped.
  const failed = (res: http.ServerResponse): void => {
    if (res.headersSent) res.destroy();
    else writeEnvelope(res, { status: 500, code: 'internal_error', message: 'An unexpected error occurred.' });
  };
  const listener: http.RequestListener = (req, res) => {
    if ((req.url ?? '').split('?')[0] === LOG_STREAM_PATH) void requests.stream(req, res, authorize).catch(() => failed(res));
    else if (isInspectorPath(req.url)) void serveInspector(sandbox, origin, req, res).catch(() => failed(res));
    else api(req, res);
  };
  // Bounded waits for slow or stuck clients. Node checks them every `connectionsCheckingInterval`
  // (30 s by default, so a 10 s header limit bit after up to 40 s): check often enough that a
  // limit bites within a tenth of itself.
  const limits: http.ServerOptions = {
    headersTimeout: timeouts.headersMs,
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.keepAliveMs,
    connectionsCheckingInterval: Math.max(10, Math.min(1000, Math.floor(Math.min(timeouts.headersMs, timeouts.requestMs) / 10))),
  };
  const server: http.Server = tls === null ? http.createServer(limits, listener) : https.createServer({ ...limits, cert: tls.cert, key: tls.key }, listener);
  server.keepAliveTimeout = timeouts.keepAliveMs;
  // What Node's parser and timers refuse gets the envelope too.
  server.on('clientError', createClientErrorHandler({ log: record, timeouts, cors }));
  server.on('connect', createConnectHandler(listener));
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => {
      store?.close();
      reject(error);
    });
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Due timers of every tenant (deposit windows, expiries, webhook retries) fire on time with no
  // request: the platform arms one real timer for the earliest (core/alarm.ts).
  origin = `${tls === null ? 'http' : 'https'}://${urlHost(options.host)}:${port}`;
  return {
    url: origin,
    inspectorUrl: `${origin}${INSPECTOR_PATH}`,
    sandbox,
    requests,
    controlKey,
    close() {
      requests.closeStreams();
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
