/**
 * `createTestSandbox`: the fixture a partner's test starts from. A sandbox with a frozen clock, a
 * client bound to it with `sandbox.clientOptions()` (retries advance the virtual clock instead of
 * waiting), disposed with the sandbox's own `close()` (also `await using`).
 * @module
 */
import { PixUsdt } from '../index.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox/index.js';

/** Options of {@link createTestSandbox}: the sandbox's, with the clock frozen by default. */
export interface TestSandboxOptions extends SandboxOptions {
  /**
   * Where the clock stands, frozen: it moves only with `clock.advance` (or the client's retry
   * waits). Default: the real time at creation.
   */
  now?: Date | string | number;
}

/**
 * `[Symbol.asyncDispose]` and `[Symbol.dispose]` where the TypeScript lib knows them (ES2025's
 * `esnext.disposable`, or @types/node), so that `await using` type-checks there and a project on
 * an older lib still compiles these declarations.
 */
export type DisposableSandbox = (SymbolConstructor extends { readonly asyncDispose: infer A extends symbol } ? { [K in A]: () => Promise<void> } : unknown) &
  (SymbolConstructor extends { readonly dispose: infer D extends symbol } ? { [K in D]: () => void } : unknown);

/** A sandbox for one test: the sandbox itself, and a client of its default tenant. */
export type TestSandbox = Sandbox &
  DisposableSandbox & {
    /** A client of the default tenant, built from `sandbox.clientOptions()`. */
    readonly client: PixUsdt;
    /** Stops the sandbox's timers and deliveries; resolves once attempts in flight have ended. */
    close(): Promise<void>;
  };

/**
 * A sandbox with a frozen clock and a client bound to it, for one test. Close it after the test
 * (`afterEach(() => sandbox.close())`), or let `await using` do it:
 *
 * @example
 * ```ts
 * await using sandbox = createTestSandbox({ seed: 1 });
 * const { conversion } = await createConversion(sandbox.client, { status: 'completed' });
 * ```
 */
export function createTestSandbox(options: TestSandboxOptions = {}): TestSandbox {
  const sandbox = createSandbox({ ...options, now: options.now ?? Date.now() });
  const client = new PixUsdt(sandbox.clientOptions());
  return closeable(Object.assign(sandbox, { client })) as TestSandbox;
}

/**
 * The sandbox's own `close()` and dispose symbols (issue 21). Until a sandbox has them, a test
 * sandbox gets a `close()` that waits for deliveries in flight; this is the one place that knows.
 */
function closeable<S extends Sandbox & { client: PixUsdt }>(sandbox: S): S & { close(): Promise<void> } {
  const own = sandbox as S & { close?: () => Promise<void> };
  if (typeof own.close === 'function') return own as S & { close(): Promise<void> };
  const close = async (): Promise<void> => {
    await sandbox.webhooks.flush();
  };
  return Object.assign(sandbox, {
    close,
    [Symbol.asyncDispose]: close,
    [Symbol.dispose]: () => void close(),
  });
}
