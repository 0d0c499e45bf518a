/**
 * The scenarios of `pix-usdt-sandbox trigger`, by the event each ends in, with their scripts: one
 * table (stripe-cli's fixtures shape) over the builders of scenarios.ts. The CLI's `trigger`
 * reads it for its help and flags and calls {@link runTrigger}; code calls it the same way.
 * @module
 */
import type { PixUsdt } from '../index.js';
import { FAIL_REASONS, STANDBY_REASONS, type Conversion, type FailReason, type StandbyReason, type User } from '../models/index.js';
import {
  type ConversionGoal,
  type ConversionScenarioOptions,
  type Direction,
  type ScenarioOptions,
  type ScenarioRecord,
  ScenarioError,
  createConversion,
  createUser,
  directionFor,
} from './scenarios.js';

/** Options of one trigger run (the CLI's flags). */
export interface TriggerOptions extends ScenarioOptions {
  /** An existing user instead of a new one (not for `user.kyc_pending`). */
  userId?: string;
  /** The quote's source amount: BRL for onramp (default `100.00`), USDT for offramp (default `20.00`). */
  amount?: string;
  /** The conversion's direction (default: the scenario's first). */
  direction?: Direction;
  /** Standby or failure reason, for `conversion.standby` and `conversion.failed` (default: the scenario's first). */
  reason?: string;
}

/** What a trigger run made: the user, the conversion (if the scenario has one), steps and events. */
export interface TriggerOutcome extends ScenarioRecord {
  /** The user the scenario created or used. */
  user: User;
  /** The conversion, for the conversion and transaction scenarios; `null` for the user ones. */
  conversion: Conversion | null;
}

/** One scenario of `trigger`: what it does, what it accepts, and its script. */
export interface TriggerScenario {
  /** One line for `trigger --list`. */
  summary: string;
  /** Directions it runs in; the first is the default. */
  directions: readonly Direction[];
  /** Reasons it accepts; the first is the default. */
  reasons?: readonly string[];
  /** Runs it against `client`. */
  run(client: PixUsdt, options: TriggerOptions): Promise<TriggerOutcome>;
}

const BOTH = ['onramp', 'offramp'] as const;

const kyc =
  (outcome: 'pending' | 'approved' | 'rejected') =>
  async (client: PixUsdt, options: TriggerOptions): Promise<TriggerOutcome> => ({
    ...(await createUser(client, { ...options, kyc: outcome })),
    conversion: null,
  });

const conversionIn =
  (goal: (options: TriggerOptions) => ConversionGoal, direction?: Direction) =>
  async (client: PixUsdt, options: TriggerOptions): Promise<TriggerOutcome> => {
    const { reason: _reason, direction: asked, ...rest } = options;
    const chosen = direction ?? asked;
    const result = await createConversion(client, { ...rest, ...goal(options), ...(chosen === undefined ? {} : { direction: chosen }) } as ConversionScenarioOptions);
    return { user: result.user, conversion: result.conversion, steps: result.steps, events: result.events };
  };

/** The name of a scenario of `trigger`: the event it ends in. */
export type TriggerName =
  | 'user.kyc_pending'
  | 'user.kyc_approved'
  | 'user.kyc_rejected'
  | 'conversion.created'
  | 'conversion.completed'
  | 'conversion.standby'
  | 'conversion.failed'
  | 'conversion.expired'
  | 'conversion.canceled'
  | 'conversion.abandoned'
  | 'transaction.sending_pix';

/** Every scenario of `trigger`, by the event it ends in. */
export const TRIGGERS: { readonly [K in TriggerName]: TriggerScenario } = {
  'user.kyc_pending': { summary: 'a new user whose KYC submission is pending', directions: BOTH, run: kyc('pending') },
  'user.kyc_approved': { summary: 'a user whose KYC is approved (a new one, or --user)', directions: BOTH, run: kyc('approved') },
  'user.kyc_rejected': { summary: 'a user whose KYC is rejected (a new one, or --user)', directions: BOTH, run: kyc('rejected') },
  'conversion.created': { summary: 'an accepted quote, awaiting its deposit', directions: BOTH, run: conversionIn(() => ({ status: 'awaiting_deposit' })) },
  'conversion.completed': { summary: 'a conversion paid and settled (--direction onramp|offramp)', directions: BOTH, run: conversionIn(() => ({ status: 'completed' })) },
  'conversion.standby': {
    summary: `a conversion in standby (--reason ${STANDBY_REASONS.join('|')})`,
    directions: BOTH,
    reasons: STANDBY_REASONS,
    run: conversionIn((o) => ({ status: 'standby', reason: (o.reason ?? 'under_funded') as StandbyReason })),
  },
  'conversion.failed': {
    summary: `a conversion failed (--reason ${FAIL_REASONS.join('|')})`,
    directions: BOTH,
    reasons: FAIL_REASONS,
    run: conversionIn((o) => ({ status: 'failed', reason: (o.reason ?? 'pix_expired') as FailReason })),
  },
  'conversion.expired': { summary: 'a conversion whose deposit window ended unpaid', directions: BOTH, run: conversionIn(() => ({ status: 'expired' })) },
  'conversion.canceled': { summary: 'a conversion canceled before its deposit', directions: BOTH, run: conversionIn(() => ({ status: 'canceled' })) },
  'conversion.abandoned': {
    summary: "a standby conversion left 7 days: advances the tenant's clock by 7 days",
    directions: BOTH,
    run: conversionIn(() => ({ status: 'abandoned' })),
  },
  'transaction.sending_pix': { summary: 'an offramp funded, its Pix payout on its way', directions: ['offramp'], run: conversionIn(() => ({ status: 'funded' }), 'offramp') },
};

/** Whether `name` is a scenario of `trigger`. */
export function isTriggerName(name: string): name is TriggerName {
  return Object.hasOwn(TRIGGERS, name);
}

/**
 * Checks a trigger's options against its scenario and fills in the defaults (the first reason,
 * the direction the reason needs); throws {@link ScenarioError} with what to change.
 */
export function resolveTrigger(name: TriggerName, options: TriggerOptions): TriggerOptions & { direction: Direction } {
  const scenario: TriggerScenario = TRIGGERS[name];
  if (name === 'user.kyc_pending' && options.userId !== undefined) throw new ScenarioError('user.kyc_pending creates a new user; it cannot use an existing one.');
  let reason: string | undefined;
  if (scenario.reasons === undefined) {
    if (options.reason !== undefined) throw new ScenarioError(`A reason is for conversion.standby and conversion.failed, not ${name}.`);
  } else {
    reason = options.reason ?? (scenario.reasons[0] as string);
    if (!scenario.reasons.includes(reason)) throw new ScenarioError(`Unknown reason ${JSON.stringify(reason)} for ${name}: one of ${scenario.reasons.join(', ')}.`);
  }
  if (options.direction !== undefined && !scenario.directions.includes(options.direction)) {
    throw new ScenarioError(`${name} runs as ${scenario.directions.join(' or ')}, not ${JSON.stringify(options.direction)}.`);
  }
  const goal = (name === 'conversion.standby' ? { status: 'standby', reason } : { status: 'awaiting_deposit' }) as ConversionGoal;
  const direction = directionFor(goal, options.direction ?? (name === 'conversion.standby' ? undefined : (scenario.directions[0] as Direction)));
  return { ...options, ...(reason === undefined ? {} : { reason }), direction };
}

/**
 * Runs the scenario of `trigger` that ends in the event `name` against `client`: what
 * `pix-usdt-sandbox trigger <name>` does, from code.
 *
 * @example
 * ```ts
 * const { conversion, events } = await runTrigger(client, 'conversion.standby', { reason: 'wrong_address' });
 * ```
 */
export async function runTrigger(client: PixUsdt, name: TriggerName, options: TriggerOptions = {}): Promise<TriggerOutcome> {
  const resolved = resolveTrigger(name, options);
  return (TRIGGERS[name] as TriggerScenario).run(client, resolved);
}
