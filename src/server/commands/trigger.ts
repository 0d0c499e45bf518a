/**
 * `trigger`: creates real resources that end in a named event, or runs a scenario file. The
 * scenarios and their scripts are pix-usdt/testing's (src/testing/triggers.ts); the runner is
 * run/trigger.ts.
 * @module
 */
import type { Command } from 'commander';
import { ScenarioError, TRIGGERS, isTriggerName, resolveTrigger, type Direction, type TriggerName, type TriggerScenario } from '../../testing/index.js';
import { UsageError, oneOf, parseAmount } from './usage.js';
import { type Connection, parseConnection, withConnection } from './connection.js';
import type { CommandSpec } from './spec.js';

/** A scenario name. */
export type ScenarioName = TriggerName;

/** Options of `trigger`. */
export type TriggerOptions =
  | (Connection & { list: true })
  | (Connection & { list: false; file: string })
  | (Connection & {
      list: false;
      file?: undefined;
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
  synopsis: 'trigger <scenario> [--user ID] [--amount 10.00] [--direction offramp] [--reason under_funded] | --file scenario.json | --list',
  define(program: Command): Command {
    return withConnection(
      program
        .command('trigger')
        .summary('create real resources that end in a given event, or run a scenario file')
        .description(
          `Create real resources (user, quote, conversion) through the API and the test helpers, so
that the server emits the named event to its webhook endpoints. Prints what it created.

With --file, runs a scenario file (steps that create, call helpers, advance the clock and
expect; docs/testing.md, docs/scenario-file.schema.json).

Scenarios (trigger --list):
${Object.entries(TRIGGERS as Record<string, TriggerScenario>)
  .map(([name, s]) => `  ${name.padEnd(26)}${s.summary}`)
  .join('\n')}`,
        )
        .argument('[scenario]', 'the event to end in, e.g. conversion.completed')
        .option('--list', 'list the scenarios and exit')
        .option('--file <PATH>', 'run this scenario file instead of a named scenario')
        .option('--user <ID>', 'use this existing user (its KYC is approved first if it is not)')
        .option('--amount <DECIMAL>', 'source amount of the quote: BRL for onramp (default 100.00), USDT for offramp (default 20.00)')
        .option('--direction <DIR>', 'onramp (default) or offramp')
        .option('--reason <REASON>', 'standby or failure reason, for conversion.standby and conversion.failed'),
    );
  },
  parse(values, args) {
    const name = args[0];
    if (values['list'] === true) {
      if (name !== undefined || values['file'] !== undefined) throw new UsageError('--list takes no scenario and no --file.');
      // Listing needs no server.
      return { url: '', apiKey: '', json: values['json'] === true, list: true };
    }
    const connection = parseConnection(values);
    const file = values['file'] as string | undefined;
    if (file !== undefined) {
      if (name !== undefined) throw new UsageError('Give a scenario or --file, not both.');
      for (const flag of ['user', 'amount', 'direction', 'reason']) if (values[flag] !== undefined) throw new UsageError(`--${flag} is for a named scenario; a scenario file says everything itself.`);
      if (file === '') throw new UsageError('--file needs the path of a scenario file (docs/testing.md).');
      return { ...connection, list: false, file };
    }
    if (name === undefined) throw new UsageError('Name a scenario (trigger --list shows them), e.g. pix-usdt-sandbox trigger conversion.completed, or give --file scenario.json.');
    if (!isTriggerName(name)) throw new UsageError(`Unknown scenario ${JSON.stringify(name)}; trigger --list shows them.`);
    const spec: TriggerScenario = TRIGGERS[name];
    const rawReason = values['reason'] as string | undefined;
    if (spec.reasons === undefined && rawReason !== undefined) throw new UsageError(`--reason is for conversion.standby and conversion.failed, not ${name}.`);
    const reason = spec.reasons === undefined ? undefined : oneOf(rawReason ?? (spec.reasons[0] as string), spec.reasons, '--reason');
    const rawDirection = values['direction'] as string | undefined;
    const asked = rawDirection === undefined ? undefined : oneOf(rawDirection, spec.directions, '--direction');
    const user = values['user'] as string | undefined;
    let direction: Direction;
    try {
      ({ direction } = resolveTrigger(name, { ...(user === undefined ? {} : { userId: user }), ...(reason === undefined ? {} : { reason }), ...(asked === undefined ? {} : { direction: asked }) }));
    } catch (error) {
      if (error instanceof ScenarioError) throw new UsageError(error.message);
      throw error;
    }
    return { ...connection, list: false, scenario: name, user, amount: parseAmount(values['amount'] as string | undefined), direction, reason };
  },
};
