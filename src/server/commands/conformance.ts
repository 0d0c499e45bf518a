/**
 * `conformance`: checks any deployment of the API against the reference (runner:
 * run/conformance.ts, over src/server/conformance.ts). It parses its own arguments: commander
 * only names it in the help, and `parseCommand` hands it the words after `conformance`.
 * @module
 */
import type { Command } from 'commander';
import type { CommandSpec } from './spec.js';

/** Options of `conformance`: its own argument words, parsed by conformance.ts. */
export interface ConformanceOptions {
  argv: string[];
}

export const conformance: CommandSpec<'conformance', ConformanceOptions> = {
  kind: 'conformance',
  synopsis: 'conformance --base-url URL --api-key KEY [options]   (see conformance --help)',
  define(program: Command): Command {
    return program
      .command('conformance')
      .summary('check any deployment of the API against the reference (pix-usdt/parity)')
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments();
  },
  parse(_values, args) {
    return { argv: args };
  },
};
