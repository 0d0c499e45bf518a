/**
 * Starts the sandbox behind a Node HTTP(S) server and stops it gracefully.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type Sandbox, type SandboxOptions, createSandbox } from '../sandbox/index.js';
import { INSPECTOR_PATH, isInspectorPath, serveInspector } from './inspector.js';
import { type RequestLogEntry, createClientErrorHandler, createConnectHandler, createListener } from './adapter.js';
import type { ServeOptions } from './commands/serve.js';
import { CorsPolicy } from './cors.js';
import { type DataStore, openDataStore } from './persistence.js';
import { LOG_STREAM_PATH, RequestLog } from './request-log.js';
import { type TlsMaterial, generateSelfSigned, readTlsFiles } from './tls.js';
import { createHttpsTransport } from './transport.js';

/** A running server. */
export interface RunningServer {
  /** `http://127.0.0.1:4010`, with the real port. */
  url: string;
  /** The inspector's console: `http://127.0.0.1:4010/_inspector/` (loopback clients only). */
  inspectorUrl: string;
  sandbox: Sandbox;
  /** The last requests answered, and the live feed of `logs tail`. */
  requests: RequestLog;
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

/** Creates the sandbox, listens, and resolves once the server accepts connections. */
export async function startServer(options: ServerOptions, log: (line: string) => void): Promise<RunningServer> {
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const cors = new CorsPolicy(options.corsOrigins ?? []);
  const sandboxOptions: SandboxOptions = {
    environment: options.environment,
    webhookTransport: createHttpsTransport({
      environment: options.environment,
      insecure: options.insecureWebhooks,
      allow: options.webhookAllow ?? [],
    }),
  };
  if (options.seed !== undefined) sandboxOptions.seed = options.seed;
  const { limits: limitFlags, ...settings } = options.settings ?? {};
  Object.assign(sandboxOptions, settings);
  if (limitFlags !== undefined) sandboxOptions.limits = limitFlags;
  if (options.sharedPlatformLimits === true) sandboxOptions.limits = { ...sandboxOptions.limits, platformScope: 'shared' };
  Object.assign(sandboxOptions, options.retention);
  const tls = await tlsMaterial(options);
  // Without --data nothing touches the disk.
  const store: DataStore | null = options.data === undefined ? null : openDataStore(options.data, sandboxOptions, { onError: (error) => log(`pix-usdt-sandbox: cannot write ${options.data}: ${(error as Error).message}`) });
  const sandbox: Sandbox = store?.sandbox ?? createSandbox(sandboxOptions);
  if (store !== null) {
    const { entries, tornBytes } = store.replayed;
    log(`pix-usdt-sandbox: data in ${store.dir} (${store.origin === 'new' ? 'new' : `restored, ${entries} journal entries`}${tornBytes > 0 ? `; dropped a cut-short last journal line of ${tornBytes} bytes, a mutation never answered` : ''})`);
  }
  // A restored folder brings the price feed and limits it stored; flags given at this start win.
  if (store !== null && store.origin !== 'new') {
    if (options.settings?.pricing !== undefined) sandbox.setPrice(options.settings.pricing);
    if (limitFlags !== undefined) sandbox.setLimits(limitFlags);
  }
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
    });
  };
  const api = createListener(sandbox, {
    get origin() {
      return origin;
    },
    log: record,
    closing: () => closing !== null,
    cors,
  });
  // Any key of this server may read the log: a key the engine does not refuse as unknown (401).
  const authorize = async (authorization: string | undefined): Promise<boolean> => {
    if (authorization === undefined) return false;
    const probe = await sandbox.handle(new Request(`${origin}/v1/webhook_endpoints?limit=1`, { headers: { authorization } }));
    return probe.status !== 401;
  };
  const listener: http.RequestListener = (req, res) => {
    if ((req.url ?? '').split('?')[0] === LOG_STREAM_PATH) void requests.stream(req, res, authorize).catch(() => res.destroy());
    else if (isInspectorPath(req.url)) void serveInspector(sandbox, origin, req, res).catch(() => res.destroy());
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
    close() {
      requests.closeStreams();
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          // Every answer has left: the state goes to one snapshot, the journal starts empty.
          store?.close();
          resolve();
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
