/**
 * The Durable Objects deployment (examples/durable-object: a partner's one-line Worker over the
 * published entry `pix-usdt/durable-object`) on the bare `workerd` binary from npm: bundle it
 * from the built package (`npm run build` first), write its config.capnp with a local disk for
 * the objects' storage, start, kill -9, start again on the same folder. Used by
 * test/durable-object/ and bench/durable-object.ts.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { buildWorker } from '../../examples/durable-object/build.js';
import { workerdConfig } from '../../examples/durable-object/config.js';

const WORKERD = new URL('../../node_modules/.bin/workerd', import.meta.url).pathname;

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
  /** The process's output so far (for failure messages). */
  log(): string;
  /** The running process's id (`null`: not running). */
  readonly pid: number | null;
}

/** Bundles the worker into `dir` and writes its config; nothing runs yet. */
export async function deploy(dir: string, vars: Record<string, string> = {}): Promise<Deployment> {
  if (!existsSync(new URL('../../dist/durable-object.js', import.meta.url))) throw new Error('dist/durable-object.js is missing: the Worker bundles the built package (npm run build).');
  mkdirSync(join(dir, 'objects'), { recursive: true });
  await buildWorker(join(dir, 'worker.js'));
  const port = await freePort();
  const token = 'operator-token-for-tests';
  writeFileSync(join(dir, 'config.capnp'), workerdConfig({ worker: 'worker.js', storageDir: join(dir, 'objects'), address: `127.0.0.1:${port}`, controlToken: token, vars }));
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let output = '';
  return {
    dir,
    url,
    token,
    get pid() {
      return child?.pid ?? null;
    },
    log: () => output,
    async start() {
      const started = performance.now();
      const proc = spawn(WORKERD, ['serve', join(dir, 'config.capnp')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
      child = proc;
      proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      for (let attempt = 0; attempt < 300; attempt++) {
        if (proc.exitCode !== null) break;
        const ok = await fetch(`${url}/_sandbox/health`).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) return performance.now() - started;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`workerd did not answer: ${output.slice(-600)}`);
    },
    async kill() {
      const proc = child;
      if (proc === null || proc.exitCode !== null || proc.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.kill('SIGKILL');
      });
      child = null;
    },
  };
}
