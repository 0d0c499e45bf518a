/**
 * The runners' room: the work of each command (its definition is in ../commands/), one file per
 * command, over an {@link Io} (io.ts) that the CLI hands them: the process's streams, signals and
 * exit (../cli/process-io.ts). `RUNNERS` has one runner per command of `COMMANDS`: the mapped type
 * refuses a command without one. A runner answers its exit code, or `null` while it keeps running
 * (`serve`).
 * @module
 */
import type { Plan } from '../commands/index.js';
import { runConformance } from './conformance.js';
import type { Io } from './io.js';
import { runListen } from './listen.js';
import { runLogsTail } from './logs.js';
import { runResend } from './resend.js';
import { runServe } from './serve.js';
import { runTrigger } from './trigger.js';
import { runWorkerd } from './workerd.js';

type Runners = { [P in Plan as P['kind']]: (options: P['options'], io: Io) => Promise<number | null> };

export const RUNNERS: Runners = {
  serve: runServe,
  workerd: runWorkerd,
  listen: runListen,
  trigger: runTrigger,
  'logs tail': runLogsTail,
  resend: runResend,
  conformance: runConformance,
};

/** Runs a plan: the exit code, or `null` while it keeps running. */
export function run(plan: Plan, io: Io): Promise<number | null> {
  const runner = RUNNERS[plan.kind] as (options: Plan['options'], io: Io) => Promise<number | null>;
  return runner(plan.options, io);
}
