/**
 * Starts the sandbox behind a Node HTTP(S) server and stops it gracefully.
 * @module
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { type Sandbox, type SandboxOptions, createSandbox } from '../sandbox/index.js';
import { type RequestLogEntry, createListener } from './adapter.js';
import type { ServeOptions } from './args.js';
import { type TlsMaterial, generateSelfSigned, readTlsFiles } from './tls.js';
import { createHttpsTransport } from './transport.js';

/** A running server. */
export interface RunningServer {
  /** `http://127.0.0.1:4010`, with the real port. */
  url: string;
  sandbox: Sandbox;
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
}

const TICK_MS = 1000;

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
export async function startServer(options: ServeOptions, log: (line: string) => void): Promise<RunningServer> {
  const sandboxOptions: SandboxOptions = {
    environment: options.environment,
    webhookTransport: createHttpsTransport({
      environment: options.environment,
      insecure: options.insecureWebhooks,
      allow: options.webhookAllow ?? [],
    }),
  };
  if (options.seed !== undefined) sandboxOptions.seed = options.seed;
  const sandbox = createSandbox(sandboxOptions);
  const tls = await tlsMaterial(options);
  // The origin is only known once listening (port 0); the listener reads it then.
  let origin = '';
  let closing: Promise<void> | null = null;
  const listener = createListener(sandbox, {
    get origin() {
      return origin;
    },
    log: (entry) => log(formatLog(entry)),
    closing: () => closing !== null,
  });
  const server: http.Server = tls === null ? http.createServer(listener) : https.createServer({ cert: tls.cert, key: tls.key }, listener);
  // Bounded waits for slow or stuck clients.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Due timers (deposit windows, expiries, webhook retries) otherwise fire only when a request
  // reaches the tenant; a tick fires the default tenant's on time, so its webhooks leave on time.
  const tick = setInterval(() => {
    sandbox.clock.advance({ seconds: 0 }).catch(() => undefined);
  }, TICK_MS);
  tick.unref();
  origin = `${tls === null ? 'http' : 'https'}://${urlHost(options.host)}:${port}`;
  return {
    url: origin,
    sandbox,
    close() {
      clearInterval(tick);
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
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
