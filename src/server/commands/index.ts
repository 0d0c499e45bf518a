/**
 * The commands' room: what each command of `pix-usdt-sandbox` is (its name, help, options and
 * validation), without running anything, so that `parseCommand` is tested without a process.
 * One file per command (its `CommandSpec`), `connection.ts` (the options of every command that
 * talks to a running server), `usage.ts` (the usage error and the validators of values) and the
 * serve flags' tables. `parse` turns commander's values into the runner's options, once: `serve`'s
 * are the server's own options (`ServerOptions`, ../http/start.ts). To add a command, see spec.ts.
 *
 * `COMMANDS`: every command, in the order of the help.
 * @module
 */
import { conformance } from './conformance.js';
import { listen } from './listen.js';
import { logsTail } from './logs.js';
import { resend } from './resend.js';
import { serve } from './serve.js';
import { trigger } from './trigger.js';
import { workerd } from './workerd.js';

export const COMMANDS = [serve, workerd, listen, trigger, logsTail, resend, conformance] as const;

type Spec = (typeof COMMANDS)[number];

/** A command to run, with its validated options. */
export type Plan = { [S in Spec as S['kind']]: { kind: S['kind']; options: ReturnType<S['parse']> } }[Spec['kind']];

export type { ServeOptions } from './serve.js';
export type { ListenOptions } from './listen.js';
export type { TriggerOptions, ScenarioName } from './trigger.js';
export type { LogsTailOptions } from './logs.js';
export type { ResendOptions } from './resend.js';
export type { ConformanceOptions } from './conformance.js';
export type { WorkerdOptions } from './workerd.js';
