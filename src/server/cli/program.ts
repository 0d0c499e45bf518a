/**
 * The command line of `pix-usdt-sandbox`: one commander program of every command's definition
 * (commands/), parsed into a plan (docs/decisions.md, "Sandbox server and msw"). Each command's
 * options are validated by its definition, so a runner only sees normalized options. The help is
 * wrapped here, once, to the terminal (help.ts): definitions keep their paragraphs wrapped for
 * reading, and the program joins them.
 * @module
 */
import { Command as Program, CommanderError } from 'commander';
import { version } from '../../../package.json';
import { COMMANDS, type Plan } from '../commands/index.js';
import { prose, wrap } from './help.js';
import { UsageError } from '../commands/usage.js';

export { DEFAULT_HOST, DEFAULT_PORT, DEFAULT_URL, UsageError } from '../commands/usage.js';
export type { Plan, ServeOptions } from '../commands/index.js';

/** What the command line asks for. */
export type Command = { kind: 'help'; text: string } | { kind: 'version' } | Plan;

const NAME = 'pix-usdt-sandbox';

const EPILOGUE = `Exit codes: 0 ok, 1 the command failed (the server answered an error, a receiver failed...),
2 usage error, 3 the server cannot be reached, 4 the server refused the API key, 5 a package the
command needs is not installed (serve --data needs libsql).

The commands other than serve talk to a running server: --url and --api-key, or
PIX_USDT_SANDBOX_URL and PIX_USDT_API_KEY. Every command has --help and --json.`;

/** Options of {@link parseCommand}. */
export interface ParseOptions {
  /** Columns the help is wrapped to (the CLI passes the terminal's; default 80). */
  helpWidth?: number;
}

interface Captured {
  out: string;
  err: string;
}

/** The program, with every command's action reporting its plan to `onPlan`. */
function buildProgram(captured: Captured, onPlan: (plan: Plan) => void, helpWidth: number): Program {
  const program = new Program(NAME)
    // Wrapped once, to the width: the sources' line breaks inside a paragraph are not kept (help.ts).
    .configureHelp({ helpWidth, minWidthToWrap: 20, preformatted: () => false, boxWrap: (text, width) => wrap(text, width) })
    .description('The pix-usdt sandbox (the whole platform, in memory) as an HTTP(S) server, and the commands that drive it.')
    .usage('<command> [options]')
    .helpOption('-h, --help', 'show this help')
    .version(version, '-v, --version', 'show the version')
    .helpCommand(false)
    .exitOverride()
    .configureOutput({
      writeOut: (text) => (captured.out += text),
      writeErr: (text) => (captured.err += text),
      outputError: () => undefined, // the message is in the CommanderError, turned into a UsageError
    });
  for (const spec of COMMANDS) {
    const command = spec.define(program);
    command.description(prose(command.description()));
    command.action((...params: unknown[]) => {
      const invoked = params[params.length - 1] as Program;
      onPlan({ kind: spec.kind, options: spec.parse(invoked.opts(), invoked.args) } as Plan);
    });
  }
  const usage = COMMANDS.map((c) => `  ${NAME} ${c.synopsis}`).join('\n');
  program.addHelpText('after', `\n${wrap(prose(`Usage of each command (${NAME} <command> --help for all its options):\n${usage}\n\n${EPILOGUE}`), helpWidth)}\n`);
  return program;
}

/** The command words at the start of `argv` (`serve`, `logs tail`), for "Run ... --help". */
function commandPath(argv: readonly string[]): string {
  const words: string[] = [];
  for (const kind of COMMANDS.map((c) => c.kind)) {
    const parts = kind.split(' ');
    if (parts.every((p, i) => argv[i] === p) && parts.length > words.length) words.splice(0, words.length, ...parts);
  }
  if (words.length === 0 && argv[0] === 'logs') words.push('logs');
  return [NAME, ...words].join(' ');
}

/** Parses `argv` (without `node` and the script). Throws {@link UsageError} on any mistake. */
export function parseCommand(argv: readonly string[], options: ParseOptions = {}): Command {
  const captured: Captured = { out: '', err: '' };
  let plan: Plan | undefined;
  const program = buildProgram(captured, (p) => (plan = p), options.helpWidth ?? 80);
  if (argv.length === 0) {
    program.outputHelp();
    return { kind: 'help', text: captured.out };
  }
  const first = argv[0] as string;
  if (!first.startsWith('-') && !program.commands.some((c) => c.name() === first)) {
    throw new UsageError(`Unknown command ${JSON.stringify(first)}; the commands are ${program.commands.map((c) => c.name()).join(', ')}. Run ${NAME} --help.`);
  }
  try {
    program.parse([...argv], { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    if (error.code === 'commander.helpDisplayed') return { kind: 'help', text: captured.out };
    if (error.code === 'commander.version') return { kind: 'version' };
    if (error.code === 'commander.help') {
      // A command group without its subcommand (`logs`): its help, as a usage error.
      throw new UsageError(`Name a subcommand.\n${captured.err.trimEnd()}`);
    }
    // "error: unknown option '--prot'\n(Did you mean --port?)" -> "Unknown option '--prot' (Did you mean --port?)."
    const message = error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ').replace(/\.$/, '');
    throw new UsageError(`${message.charAt(0).toUpperCase()}${message.slice(1)}. Run ${commandPath(argv)} --help.`);
  }
  if (plan === undefined) throw new UsageError(`Nothing to do. Run ${NAME} --help.`);
  return plan;
}
