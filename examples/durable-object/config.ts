/**
 * The workerd configuration of the Durable Objects deployment (`workerd serve config.capnp`): the
 * bundled worker, its two object classes with SQLite storage on a local disk folder (kept across
 * restarts, `kill -9` included), the bindings wrangler.toml declares for Cloudflare, and an
 * outbound network that reaches public addresses, plus loopback for a sandbox's local receivers.
 * @module
 */

/** What a local deployment needs. */
export interface WorkerdConfig {
  /** The bundled worker's file name, beside config.capnp (see build.ts). */
  worker: string;
  /** Where the objects' SQLite files live (created if missing). */
  storageDir: string;
  /** `127.0.0.1:PORT` to listen on. */
  address: string;
  /** The operator's token (creates tenants). */
  controlToken: string;
  /** Other text bindings: SETTLEMENT_DELAY_SECONDS, QUOTE_RATE_LIMIT... */
  vars?: Record<string, string>;
}

/** The config.capnp text. */
export function workerdConfig(c: WorkerdConfig): string {
  const text = (name: string, value: string) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`;
  const bindings = [
    '(name = "TENANTS", durableObjectNamespace = "TenantObject")',
    '(name = "DIRECTORY", durableObjectNamespace = "Directory")',
    text('CONTROL_TOKEN', c.controlToken),
    ...Object.entries(c.vars ?? {}).map(([k, v]) => text(k, v)),
  ];
  return `using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "objects", disk = (path = ${JSON.stringify(c.storageDir)}, writable = true)),
    (name = "internet", network = (allow = ["public", "local"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [ (name = "http", address = ${JSON.stringify(c.address)}, http = (), service = "main") ],
);

const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed ${JSON.stringify(c.worker)}) ],
  compatibilityDate = "2025-09-01",
  durableObjectNamespaces = [
    (className = "TenantObject", uniqueKey = "pix-usdt-sandbox-tenant", enableSql = true),
    (className = "Directory", uniqueKey = "pix-usdt-sandbox-directory", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "objects"),
  bindings = [
    ${bindings.join(',\n    ')},
  ],
  globalOutbound = "internet",
);
`;
}
