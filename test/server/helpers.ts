/**
 * Starts the real built binary (`dist/cli.js`) as a child process and collects its output.
 * Every wait is bounded; `stopAll()` in afterEach kills whatever is still running.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** A cheap check with a clear message, instead of a confusing spawn failure. */
export function assertBuilt(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` (npm test builds first).`);
}

export interface Ready {
  url: string;
  api_key: string;
  tenant_id: string;
  /** The inspector's console (issue 15). */
  inspector_url: string;
  /** The operator's key: the whole request log feed (issue 21). */
  control_key: string;
}

export interface Child {
  process: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited and its output is read. */
  exited: Promise<number | string>;
}

const running = new Set<ChildProcess>();

/** Runs `node dist/cli.js ...args` (or another copy of the CLI), or `...wrapper node dist/cli.js ...args`. */
export function run(args: readonly string[], env: NodeJS.ProcessEnv = {}, cli = CLI, wrapper: readonly string[] = []): Child {
  assertBuilt();
  const command = [...wrapper, process.execPath, cli, ...args];
  const child = spawn(command[0] as string, command.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => {
    // 'close', not 'exit': it comes after stdout and stderr are drained.
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve(code ?? signal ?? 'unknown');
    });
  });
  return { process: child, stdout: () => out, stderr: () => err, exited };
}

/** Waits until `check` returns a value, the process exits, or `ms` pass. */
export function waitFor<T>(child: Child, check: () => T | undefined, what: string, ms = 20_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const value = check();
      if (value !== undefined) {
        done();
        resolve(value);
      }
    }, 20);
    const deadline = setTimeout(() => {
      done();
      reject(new Error(`Timed out waiting for ${what}. stderr: ${child.stderr()}`));
    }, ms);
    void child.exited.then((code) => {
      const value = check();
      done();
      if (value !== undefined) resolve(value);
      else reject(new Error(`The process exited (${code}) before ${what}. stderr: ${child.stderr()}`));
    });
    function done(): void {
      clearInterval(timer);
      clearTimeout(deadline);
    }
  });
}

/** Starts `serve` (through `wrapper`, when given) and resolves with the parsed JSON line. */
export async function serve(args: readonly string[] = [], env: NodeJS.ProcessEnv = {}, wrapper: readonly string[] = []): Promise<{ child: Child; ready: Ready }> {
  const child = run(['serve', '--port', '0', ...args], env, CLI, wrapper);
  const line = await waitFor(child, () => (child.stdout().includes('\n') ? child.stdout().split('\n')[0] : undefined), 'the ready line');
  return { child, ready: JSON.parse(line as string) as Ready };
}

/** Resolves with the exit code, or rejects after `ms`. */
export function exitCode(child: Child, ms = 20_000): Promise<number | string> {
  return Promise.race([
    child.exited,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`The process did not exit within ${ms} ms. stderr: ${child.stderr()}`)), ms).unref()),
  ]);
}

/** Kills every child still running (afterEach). */
export function stopAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

