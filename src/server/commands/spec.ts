/**
 * The shape of a command's definition. A command is two files: its definition here in
 * `commands/` (name, help, options, validation: pure, so `parseCommand` can be tested without
 * running anything) and its runner in `run/` (the work). To add one: write both, then add the
 * definition to `COMMANDS` (commands/index.ts) and the runner to `RUNNERS` (run/index.ts); the
 * types refuse a definition without a runner. A description keeps its paragraphs wrapped for
 * reading: the program joins and wraps them once, to the terminal (../cli/program.ts).
 * @module
 */
import type { Command } from 'commander';

/** One command of `pix-usdt-sandbox`. */
export interface CommandSpec<K extends string, O> {
  /** The plan's `kind`; for nested commands, the words joined by a space (`logs tail`). */
  kind: K;
  /** One line of the top-level help: the command and its main flags. */
  synopsis: string;
  /** Adds the command to `program` and returns the command whose action runs it. */
  define(program: Command): Command;
  /** commander's values (camelCase keys) and positional arguments to the runner's options. Throws `UsageError`. */
  parse(values: Record<string, unknown>, args: string[]): O;
}
