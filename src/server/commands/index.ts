/**
 * Every command of `pix-usdt-sandbox`, in the order of the help. To add one, see spec.ts.
 * @module
 */
import { conformance } from './conformance.js';
import { listen } from './listen.js';
import { logsTail } from './logs.js';
import { resend } from './resend.js';
import { serve } from './serve.js';
import { trigger } from './trigger.js';

export const COMMANDS = [serve, listen, trigger, logsTail, resend, conformance] as const;

type Spec = (typeof COMMANDS)[number];

/** A command to run, with its validated options. */
export type Plan = { [S in Spec as S['kind']]: { kind: S['kind']; options: ReturnType<S['parse']> } }[Spec['kind']];

export type { ServeOptions } from './serve.js';
export type { ListenOptions } from './listen.js';
export type { TriggerOptions, ScenarioName } from './trigger.js';
export type { LogsTailOptions } from './logs.js';
export type { ResendOptions } from './resend.js';
export type { ConformanceOptions } from './conformance.js';
