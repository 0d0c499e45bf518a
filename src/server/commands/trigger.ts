/**
 * `trigger`: creates real resources that end in a named event (runner: run/trigger.ts).
 * @module
 */
import type { Command } from 'commander';
import { FAIL_REASONS, STANDBY_REASONS } from '../../models/index.js';
import { UsageError, oneOf, parseAmount } from '../usage.js';
import { type Connection, parseConnection, withConnection } from './connection.js';
import type { CommandSpec } from './spec.js';
import { prose } from '../help.js';

type Direction = 'onramp' | 'offramp';

/** A scenario: its event, what it does, and the options it reads. */
interface Scenario {
  summary: string;
  /** Directions it can run in; the first is the default. */
  directions: readonly Direction[];
  /** Reasons `--reason` takes; the first is the default. */
  reasons?: readonly string[];
}

const BOTH = ['onramp', 'offramp'] as const;
const OFFRAMP_ONLY_STANDBY = new Set(['window_expired', 'duplicate_deposit', 'wrong_address', 'late_post_window']);

/** Every scenario, by the event it ends in. */
export const SCENARIOS = {
  'user.kyc_pending': { summary: 'a new user whose KYC submission is pending', directions: BOTH },
  'user.kyc_approved': { summary: 'a user whose KYC is approved (a new one, or --user)', directions: BOTH },
  'user.kyc_rejected': { summary: 'a user whose KYC is rejected (a new one, or --user)', directions: BOTH },
  'conversion.created': { summary: 'an accepted quote, awaiting its deposit', directions: BOTH },
  'conversion.completed': { summary: 'a conversion paid and settled (--direction onramp|offramp)', directions: BOTH },
  'conversion.standby': { summary: `a conversion in standby (--reason ${STANDBY_REASONS.join(', ')})`, directions: BOTH, reasons: STANDBY_REASONS },
  'conversion.failed': { summary: `a conversion failed (--reason ${FAIL_REASONS.join(', ')})`, directions: BOTH, reasons: FAIL_REASONS },
  'conversion.expired': { summary: 'a conversion whose deposit window ended unpaid', directions: BOTH },
  'conversion.canceled': { summary: 'a conversion canceled before its deposit', directions: BOTH },
  'conversion.abandoned': { summary: "a standby conversion left 7 days: advances the tenant's clock by 7 days", directions: BOTH },
  'transaction.sending_pix': { summary: 'an offramp funded, its Pix payout on its way', directions: ['offramp'] },
} as const satisfies Record<string, Scenario>;

/** A scenario name. */
export type ScenarioName = keyof typeof SCENARIOS;

/** Options of `trigger`. */
export type TriggerOptions =
  | (Connection & { list: true })
  | (Connection & {
      list: false;
      scenario: ScenarioName;
      /** An existing user of the partner, instead of a new one. */
      user: string | undefined;
      /** The quote's source amount (BRL for onramp, USDT for offramp). */
      amount: string | undefined;
      direction: Direction;
      reason: string | undefined;
    });

export const trigger: CommandSpec<'trigger', TriggerOptions> = {
  kind: 'trigger',
  synopsis: 'trigger <scenario> [--user ID] [--amount 10.00] [--direction offramp] [--reason under_funded] | --list',
  define(program: Command): Command {
    return withConnection(
      program
        .command('trigger')
        .summary('create real resources that end in a given event')
        .description(
          prose(`Create real resources (user, quote, conversion) through the API and the test helpers, so
that the server emits the named event to its webhook endpoints. Prints what it created.

Scenarios (trigger --list):
${Object.entries(SCENARIOS)
  .map(([name, s]) => `  ${name.padEnd(26)}${s.summary}`)
  .join('\n')}`),
        )
        .argument('[scenario]', 'the event to end in, e.g. conversion.completed')
        .option('--list', 'list the scenarios and exit')
        .option('--user <ID>', 'use this existing user (its KYC is approved first if it is not)')
        .option('--amount <DECIMAL>', 'source amount of the quote: BRL for onramp (default 100.00), USDT for offramp (default 20.00)')
        .option('--direction <DIR>', 'onramp (default) or offramp')
        .option('--reason <REASON>', 'standby or failure reason, for conversion.standby and conversion.failed'),
    );
  },
  parse(values, args) {
    const name = args[0];
    if (values['list'] === true) {
      if (name !== undefined) throw new UsageError('--list takes no scenario.');
      // Listing needs no server.
      return { url: '', apiKey: '', json: values['json'] === true, list: true };
    }
    const connection = parseConnection(values);
    if (name === undefined) throw new UsageError('Name a scenario (trigger --list shows them), e.g. pix-usdt-sandbox trigger conversion.completed.');
    if (!Object.hasOwn(SCENARIOS, name)) throw new UsageError(`Unknown scenario ${JSON.stringify(name)}; trigger --list shows them.`);
    const scenario = name as ScenarioName;
    const spec: Scenario = SCENARIOS[scenario];
    if (scenario === 'user.kyc_pending' && values['user'] !== undefined) throw new UsageError('user.kyc_pending creates a new user: drop --user.');
    const rawReason = values['reason'] as string | undefined;
    let reason: string | undefined;
    if (spec.reasons === undefined) {
      if (rawReason !== undefined) throw new UsageError(`--reason is for conversion.standby and conversion.failed, not ${scenario}.`);
    } else {
      reason = oneOf(rawReason ?? (spec.reasons[0] as string), spec.reasons, '--reason');
    }
    const needsOfframp = scenario === 'conversion.standby' && reason !== undefined && OFFRAMP_ONLY_STANDBY.has(reason);
    const defaultDirection: Direction = needsOfframp ? 'offramp' : (spec.directions[0] as Direction);
    const direction = oneOf((values['direction'] as string | undefined) ?? defaultDirection, spec.directions, '--direction');
    if (needsOfframp && direction !== 'offramp') throw new UsageError(`Standby ${reason} happens to offramps only: drop --direction or use --direction offramp.`);
    return {
      ...connection,
      list: false,
      scenario,
      user: values['user'] as string | undefined,
      amount: parseAmount(values['amount'] as string | undefined),
      direction,
      reason,
    };
  },
};
