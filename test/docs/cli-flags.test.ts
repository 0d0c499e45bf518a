// Every command-line flag the docs name exists (issue 36: docs/server-and-msw.md taught
// `logs tail --backlog`, which the CLI refused with "Unknown option"). README.md and docs/*.md
// are read as a user reads them: a command of `pix-usdt-sandbox` (`pix-usdt-sandbox logs tail
// --status 4xx`, or a code span that starts with the command, `` `trigger --file` ``) may only
// name flags of that command's definition (src/server/commands); any other `--flag` of the docs
// must be a flag of some command, or of the other tools the docs run (node, npm, the benches).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/server/commands/index.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** Flags the docs name for tools other than pix-usdt-sandbox, and which tool. */
const OTHER_TOOLS: Record<string, string> = {
  '--import': 'node',
  '--expose-gc': 'node',
  '--perf-basic-prof': 'node',
  '--save-dev': 'npm install',
  '--offline': 'npm install',
  '--init': 'tsc',
  '--pack': 'attw',
  '--profile': 'attw',
  '--only': 'bench/run.ts',
  '--no-write': 'bench/run.ts',
  '--seconds': 'bench/soak.ts',
  '--stack': 'bench/frames.ts',
  '--baseline': 'bench/lifecycle.ts',
  '--current': 'bench/new-user.ts',
  '--top': 'bench/server.ts',
  '--rounds': 'bench/server.ts',
  '--phases': 'bench/soak.ts',
  '--client': 'bench/soak.ts',
  '--dry-run': 'wrangler deploy',
};

/** The long flags of each command, from its definition (`--no-pacing` as written). */
function definedFlags(): Map<string, Set<string>> {
  const program = new Command('pix-usdt-sandbox');
  const out = new Map<string, Set<string>>();
  for (const spec of COMMANDS) {
    const command = spec.define(program);
    out.set(spec.kind, new Set(['--help', ...command.options.flatMap((o) => (o.long === undefined ? [] : [o.long]))]));
  }
  return out;
}

const FLAGS = definedFlags();
const KINDS = [...FLAGS.keys()].sort((a, b) => b.length - a.length);
const ANY_FLAG = new Set([...FLAGS.values()].flatMap((s) => [...s]).concat('--version'));

interface Mention {
  page: string;
  command: string;
  text: string;
  flags: string[];
}

const flagsIn = (text: string): string[] => [...text.matchAll(/(?:^|[\s[|(])(--[a-z][a-z0-9-]*)/g)].map((m) => m[1] as string);

/** The code of a page: fenced blocks line by line (continuations joined), and inline code spans. */
function codeOf(markdown: string): Array<{ text: string; span: boolean }> {
  const out: Array<{ text: string; span: boolean }> = [];
  const prose: string[] = [];
  let fenced = false;
  let block: string[] = [];
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      if (fenced) out.push(...block.join('\n').replace(/\\\n\s*/g, ' ').split('\n').map((text) => ({ text, span: false })));
      fenced = !fenced;
      block = [];
      continue;
    }
    if (fenced) block.push(line);
    else prose.push(line);
  }
  for (const m of prose.join('\n').matchAll(/`([^`\n]+)`/g)) out.push({ text: m[1] as string, span: true });
  return out;
}

/** `pix-usdt-sandbox <command> ...` up to where the shell command ends, and code spans that start with a command. */
function mentions(page: string): Mention[] {
  const out: Mention[] = [];
  const words = KINDS.map((k) => k.replace(' ', '\\s+')).join('|');
  for (const { text, span } of codeOf(readFileSync(join(ROOT, page), 'utf8'))) {
    const found = [...text.matchAll(new RegExp(`pix-usdt-sandbox\\s+(${words})\\b(.*)`, 'g'))];
    const leading = span ? new RegExp(`^(${words})\\b(.*)`).exec(text) : null;
    for (const m of leading === null || found.length > 0 ? found : [leading]) {
      // The command ends at a comment, `&&`, `;`, a redirection, or a pipe into another program
      // (`| --failed` in a synopsis is an alternative, not a pipe).
      const rest = (m[2] as string).split(/\s#|&&|;|>|\|(?!\s*-)/)[0] as string;
      out.push({ page, command: (m[1] as string).replace(/\s+/, ' '), text: `${m[1]}${rest}`.trim(), flags: flagsIn(rest) });
    }
  }
  return out;
}

const ALL = PAGES.flatMap(mentions);

describe('the command-line flags the docs name', () => {
  it('finds the commands the docs teach (the reader is a real one)', () => {
    const commands = new Set(ALL.map((m) => m.command));
    expect([...commands].sort()).toEqual([...FLAGS.keys()].sort());
    expect(ALL.filter((m) => m.flags.length > 0).length).toBeGreaterThan(30);
    expect(ALL).toContainEqual(expect.objectContaining({ page: 'README.md', command: 'logs tail', flags: ['--status', '--backlog'] }));
  });

  it('a flag another command has is not taken for this one (the check is by command)', () => {
    const fake: Mention = { page: 'x.md', command: 'logs tail', text: 'logs tail --forward-to URL', flags: ['--forward-to'] };
    expect(FLAGS.get(fake.command)?.has('--forward-to')).toBe(false);
    expect(FLAGS.get('listen')?.has('--forward-to')).toBe(true);
  });

  it.each(PAGES)('%s: each flag of a pix-usdt-sandbox command is an option of that command', (page) => {
    const unknown = ALL.filter((m) => m.page === page).flatMap((m) => m.flags.filter((f) => !FLAGS.get(m.command)?.has(f)).map((f) => `${f} in \`${m.text}\``));
    expect(unknown).toEqual([]);
  });

  it.each(PAGES)('%s: every other --flag is one of a command, or of a tool the docs name', (page) => {
    const text = readFileSync(join(ROOT, page), 'utf8');
    const unknown = [...new Set(flagsIn(text))].filter((f) => !ANY_FLAG.has(f) && !(f in OTHER_TOOLS));
    expect(unknown).toEqual([]);
  });
});
