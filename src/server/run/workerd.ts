/**
 * `workerd`: bundles the project's Worker, writes the configuration, starts workerd (the work is
 * ../workerd/deployment.ts), makes the first tenant (kept in the data folder), prints the ready
 * line, and stops workerd on SIGINT/SIGTERM or with its parent.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { WorkerdOptions } from '../commands/workerd.js';
import { MissingToolError, type Tools, type WorkerdProcess, loadTools, prepareDeployment, startWorkerd, untilHealthy } from '../workerd/deployment.js';
import { EXIT, type Io } from './io.js';

/** The line printed on stdout once the Worker answers (serve's keys, plus workerd's pid). */
export interface WorkerdReadyLine {
  url: string;
  api_key: string;
  tenant_id: string;
  inspector_url: string;
  /** The operator's token. */
  control_key: string;
  /** workerd's process id. */
  pid: number;
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A new operator's token, in the form `logs tail` takes as a control key. */
function newToken(): string {
  let out = 'sk_control_';
  while (out.length < 43) for (const byte of randomBytes(32)) if (byte < 248 && out.length < 43) out += BASE62[byte % 62];
  return out;
}

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

/** The first tenant of the folder: made once with the operator's token, then read back (its key stays valid across restarts). */
async function firstTenant(url: string, token: string, dir: string): Promise<{ tenant_id: string; api_key: string }> {
  const file = join(dir, 'first-tenant.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { tenant_id: string; api_key: string };
  const response = await fetch(`${url}/v1/test_helpers/tenants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': 'pix-usdt-sandbox-workerd-first-tenant' },
    body: '{}',
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`the Worker refused to make the first tenant: ${response.status} ${text.slice(0, 300)}`);
  const made = JSON.parse(text) as { tenant_id: string; api_key: string };
  const first = { tenant_id: made.tenant_id, api_key: made.api_key };
  writeFileSync(file, JSON.stringify(first), { mode: 0o600 });
  return first;
}

/** Runs `workerd`: `null` while it runs (it exits the process itself once stopped). */
export async function runWorkerd(options: WorkerdOptions, io: Io): Promise<number | null> {
  const say = (message: string, level: 'info' | 'error' = 'info'): void => io.stderr(options.json ? JSON.stringify({ level, message }) : `pix-usdt-sandbox: ${message}`);
  let tools: Tools;
  try {
    tools = loadTools('.');
  } catch (error) {
    if (!(error instanceof MissingToolError)) throw error;
    say(`cannot start: ${error.message}`, 'error');
    return EXIT.dependency;
  }
  const temporary = options.data === undefined;
  const dir = temporary ? mkdtempSync(join(tmpdir(), 'pix-usdt-workerd-')) : resolve(options.data as string);
  const cleanUp = (): void => {
    if (temporary) rmSync(dir, { recursive: true, force: true });
  };
  let running: WorkerdProcess;
  let url: string;
  let token: string;
  try {
    // A folder it makes is its owner's only (the objects' storage and the first key are in it); one that exists keeps its mode.
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
    const port = options.port === 0 ? await freePort() : options.port;
    url = `http://127.0.0.1:${port}`;
    const prepared = await prepareDeployment(tools, { dir, projectDir: '.', worker: options.worker, port, vars: options.vars });
    say(`bundled the Worker (${Math.round(prepared.bundleBytes / 1024)} kB) and wrote ${prepared.config}`);
    token = options.controlToken ?? newToken();
    running = startWorkerd(tools, prepared, token);
    await untilHealthy(url, running);
  } catch (error) {
    say(`cannot start: ${(error as Error).message}`, 'error');
    cleanUp();
    return EXIT.failure;
  }
  let stopping = false;
  let exitCode: number = EXIT.ok;
  const stop = (why: string): void => {
    if (stopping) return;
    stopping = true;
    say(`${why}, stopping workerd`);
    running.child.kill('SIGTERM');
    const force = setTimeout(() => running.child.kill('SIGKILL'), 5_000);
    force.unref();
  };
  void running.exited.then(({ code, signal }) => {
    if (stopping) {
      say('stopped');
      cleanUp();
      io.exit(exitCode);
      return;
    }
    say(`workerd stopped on its own (${signal ?? `exit code ${code}`})${temporary ? '' : `; the data in ${dir} is kept: run the same command to start it again`}. Its last output: ${running.output().trim().slice(-600) || '(none)'}`, 'error');
    cleanUp();
    io.exit(EXIT.failure);
  });
  io.onStop(stop);
  let first: { tenant_id: string; api_key: string };
  try {
    first = await firstTenant(url, token, dir);
  } catch (error) {
    say(`cannot start: ${(error as Error).message}`, 'error');
    exitCode = EXIT.failure;
    stop('the first tenant failed');
    return null;
  }
  const ready: WorkerdReadyLine = { url, api_key: first.api_key, tenant_id: first.tenant_id, inspector_url: `${url}/_inspector/`, control_key: token, pid: running.child.pid ?? 0 };
  io.stdout(JSON.stringify(ready));
  say(`Durable Objects deployment on workerd at ${url} (data in ${dir}${temporary ? ', removed at the stop' : ''}); more tenants: curl -X POST ${url}/v1/test_helpers/tenants -H "Authorization: Bearer <control_key>" (Ctrl-C to stop)`);
  return null;
}
