/**
 * The Durable Objects deployment from this repository (the one-line Worker over the published
 * entry `pix-usdt/durable-object`, resolved by self-reference to the built `dist/`: `npm run
 * build` first) on the bare `workerd` binary from npm, prepared by the `workerd` command's own
 * code (src/server/workerd/deployment.ts: the bundle as wrangler makes it, the configuration):
 * start, kill -9, start again on the same folder. Used by bench/durable-object.ts; the proof from
 * the tarball, through the command, is test/package/durable-object.test.ts.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadTools, prepareDeployment, startWorkerd, untilHealthy, type WorkerdProcess } from '../../src/server/workerd/deployment.js';

const root = new URL('../../', import.meta.url).pathname;

/** A free loopback port (listened on, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

/** A deployment in a folder: the bundle, the config and the objects' storage. */
export interface Deployment {
  dir: string;
  url: string;
  token: string;
  /** Starts workerd on the folder; resolves once the Worker answers (with the milliseconds it took). */
  start(): Promise<number>;
  /** `kill -9`, and waits for the process to be gone. */
  kill(): Promise<void>;
  /** The running process's id (`null`: not running). */
  readonly pid: number | null;
}

/** Bundles the worker into `dir` and writes its config; nothing runs yet. */
export async function deploy(dir: string, vars: Record<string, string> = {}): Promise<Deployment> {
  if (!existsSync(`${root}dist/durable-object.js`)) throw new Error('dist/durable-object.js is missing: the Worker bundles the built package (npm run build).');
  const tools = loadTools(root);
  const port = await freePort();
  const prepared = await prepareDeployment(tools, { dir, projectDir: root, worker: null, port, vars });
  const token = 'operator-token-for-tests';
  const url = `http://127.0.0.1:${port}`;
  let running: WorkerdProcess | null = null;
  return {
    dir,
    url,
    token,
    get pid() {
      return running?.child.pid ?? null;
    },
    async start() {
      const started = performance.now();
      running = startWorkerd(tools, prepared, token);
      await untilHealthy(url, running);
      return performance.now() - started;
    },
    async kill() {
      const proc = running;
      if (proc === null || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
      proc.child.kill('SIGKILL');
      await proc.exited;
      running = null;
    },
  };
}
