/**
 * The Durable Objects deployment on workerd, run locally from a partner's project (the `workerd`
 * command): find `esbuild` and `workerd` in the project, bundle the partner's Worker as wrangler
 * bundles one (ESM, the `workerd`/`worker`/`browser` conditions, `cloudflare:` modules left to
 * the runtime, no Node built-in: no `nodejs_compat`), write the workerd configuration (the two
 * SQLite object classes on a local disk folder, the bindings wrangler.toml declares), and start,
 * watch and stop the `workerd` process. Neither tool is a dependency of pix-usdt: the project
 * installs them (`npm install --save-dev workerd esbuild`).
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

/** The partner's whole Worker, when the project has no file of its own. */
export const DEFAULT_WORKER = "export { default, TenantObject, Directory } from 'pix-usdt/durable-object';\n";
/** The date the configuration runs the Worker at (the one wrangler.toml names too). */
export const COMPATIBILITY_DATE = '2025-09-01';
/** The install line of the tools, for the message when one is missing. */
export const INSTALL_TOOLS = 'npm install --save-dev workerd esbuild';

/** A tool the command needs is not installed in the project. */
export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
  constructor(
    readonly packageName: 'workerd' | 'esbuild',
    cause: unknown,
  ) {
    super(`the deployment needs the package ${packageName} in your project (not a dependency of pix-usdt). Install both tools beside pix-usdt: ${INSTALL_TOOLS}`, { cause });
  }
}

interface Esbuild {
  build(options: Record<string, unknown>): Promise<{ metafile?: { outputs: Record<string, { bytes: number }> } }>;
}

/** The tools, from the project at `projectDir` (then from beside pix-usdt itself). */
export interface Tools {
  esbuild: Esbuild;
  /** The `workerd` binary's path. */
  workerd: string;
}

function load(name: 'workerd' | 'esbuild', projectDir: string, besides: string | null): unknown {
  let last: unknown;
  for (const from of [join(resolve(projectDir), 'package.json'), ...(besides === null ? [] : [besides])]) {
    try {
      return createRequire(from)(name);
    } catch (error) {
      last = error;
    }
  }
  throw new MissingToolError(name, last);
}

/**
 * Loads esbuild and finds the workerd binary, from the project, then from beside pix-usdt (`npx -p
 * pix-usdt -p workerd -p esbuild` installs them side by side; `besides: null` looks in the project
 * only); throws {@link MissingToolError} for the first missing.
 */
export function loadTools(projectDir: string, besides: string | null = import.meta.url): Tools {
  const workerd = load('workerd', projectDir, besides) as { default?: string };
  if (typeof workerd.default !== 'string' || !existsSync(workerd.default)) throw new MissingToolError('workerd', new Error('its binary for this platform is missing'));
  return { workerd: workerd.default, esbuild: load('esbuild', projectDir, besides) as Esbuild };
}

/**
 * Bundles the Worker into `outfile` as wrangler does; answers its size in bytes. `worker`: the
 * partner's file, or `null` for {@link DEFAULT_WORKER}; `pix-usdt/durable-object` resolves from
 * `projectDir`'s node_modules, as in any build.
 */
export async function bundleWorker(esbuild: Esbuild, worker: string | null, projectDir: string, outfile: string): Promise<number> {
  const entry = worker === null ? { stdin: { contents: DEFAULT_WORKER, resolveDir: resolve(projectDir), sourcefile: 'worker.ts', loader: 'ts' }, tsconfigRaw: {} } : { entryPoints: [resolve(projectDir, worker)] };
  const result = await esbuild.build({
    ...entry,
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    target: 'es2022',
    external: ['cloudflare:*'],
    metafile: true,
    logLevel: 'silent',
  });
  return Object.values(result.metafile?.outputs ?? {}).reduce((sum, o) => sum + o.bytes, 0);
}

/** What the configuration of a local deployment needs. */
export interface WorkerdConfig {
  /** The bundled worker's file name, beside config.capnp. */
  worker: string;
  /** Where the objects' SQLite files live (kept across restarts, `kill -9` included). */
  storageDir: string;
  /** `127.0.0.1:PORT` to listen on. */
  address: string;
  /** The Worker's variables (SETTLEMENT_DELAY_SECONDS, QUOTE_RATE_LIMIT...). `CONTROL_TOKEN` is read from workerd's environment, never written here. */
  vars?: Record<string, string>;
}

/**
 * The config.capnp text: the Worker, its two object classes with SQLite storage on a local disk,
 * the bindings wrangler.toml declares, the operator's token from the environment, and an outbound
 * network that reaches public addresses plus loopback (a sandbox's local webhook receivers).
 */
export function workerdConfig(c: WorkerdConfig): string {
  const text = (name: string, value: string) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`;
  const bindings = [
    '(name = "TENANTS", durableObjectNamespace = "TenantObject")',
    '(name = "DIRECTORY", durableObjectNamespace = "Directory")',
    '(name = "CONTROL_TOKEN", fromEnvironment = "CONTROL_TOKEN")',
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
  compatibilityDate = "${COMPATIBILITY_DATE}",
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

/** A deployment's folder, ready to start: the bundle, the configuration, the objects' storage. */
export interface PreparedDeployment {
  dir: string;
  config: string;
  /** Bytes of the bundled Worker. */
  bundleBytes: number;
}

/** Bundles the Worker into `dir` and writes its configuration (listening on `port`); nothing runs yet. */
export async function prepareDeployment(tools: Tools, options: { dir: string; projectDir: string; worker: string | null; port: number; vars?: Record<string, string> }): Promise<PreparedDeployment> {
  const storageDir = join(options.dir, 'objects');
  mkdirSync(storageDir, { recursive: true, mode: 0o700 });
  const bundleBytes = await bundleWorker(tools.esbuild, options.worker, options.projectDir, join(options.dir, 'worker.js'));
  const config = join(options.dir, 'config.capnp');
  writeFileSync(config, workerdConfig({ worker: 'worker.js', storageDir, address: `127.0.0.1:${options.port}`, vars: options.vars ?? {} }));
  return { dir: options.dir, config, bundleBytes };
}

/** A running workerd. */
export interface WorkerdProcess {
  readonly child: ChildProcess;
  /** What workerd printed so far (its last 4 kB), for a failure's message. */
  output(): string;
  /** Resolves with how it ended. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `workerd serve` on a prepared folder, with the operator's token in its environment only. */
export function startWorkerd(tools: Tools, prepared: PreparedDeployment, controlToken: string): WorkerdProcess {
  const child = spawn(tools.workerd, ['serve', prepared.config], { cwd: prepared.dir, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CONTROL_TOKEN: controlToken } });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4096);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) => {
    child.once('exit', (code, signal) => resolveExit({ code, signal }));
    child.once('error', () => resolveExit({ code: 1, signal: null }));
  });
  return { child, output: () => output, exited };
}

/** Resolves once the Worker answers `/_sandbox/health` at `url`; rejects when workerd exits first or after `timeoutMs`. */
export async function untilHealthy(url: string, running: WorkerdProcess, timeoutMs = 30_000): Promise<void> {
  let ended = false;
  void running.exited.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  while (!ended && Date.now() < deadline) {
    const ok = await fetch(`${url}/_sandbox/health`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`workerd ${ended ? 'exited' : 'did not answer'} before the Worker was ready: ${running.output().trim().slice(-800) || '(no output)'}`);
}
