/**
 * Every command's help is wrapped once, to the terminal's width (issue 27): no line passes the
 * width (a word longer than it aside), and no line of a paragraph or list item ends early, as
 * text wrapped twice (at the sources' width, then at the terminal's) did. Pure: parseCommand
 * takes the width (conformance's help included: commander's, as every command's).
 */
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../src/server/cli/program.js';
import { prose, terminalWidth, wrap } from '../../../src/server/cli/help.js';

const COMMANDS = [[], ['serve'], ['workerd'], ['listen'], ['trigger'], ['logs'], ['logs', 'tail'], ['resend'], ['conformance']];

function help(words: string[], width: number): string {
  const command = parseCommand([...words, '--help'], { helpWidth: width });
  if (command.kind !== 'help') throw new Error(`${words.join(' ')} --help is not help`);
  return command.text;
}

const indentOf = (line: string): number => line.length - line.trimStart().length;
const firstWord = (line: string): string => line.trimStart().split(' ')[0] as string;

/** Lines that continue the line before them: prose after prose, or a deeper-indented line under an item. */
function continuations(lines: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 1; i < lines.length; i++) {
    const [a, b] = [lines[i - 1] as string, lines[i] as string];
    if (a.trim() === '' || b.trim() === '') continue;
    const prose = indentOf(a) === 0 && indentOf(b) === 0;
    const hanging = indentOf(b) > 2 && indentOf(b) >= indentOf(a) && !b.trimStart().startsWith('-');
    if (prose || hanging) pairs.push([a, b]);
  }
  return pairs;
}

describe.each([60, 80, 100, 132])('--help at %i columns', (width) => {
  it.each(COMMANDS.map((words) => [words.join(' ') || '(top level)', words] as const))('%s: no line passes the width; no line ends before it must', (_name, words) => {
    const lines = help([...words], width).split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) {
      // Past the width only as a single word that cannot be broken.
      if (line.length > width) expect(line.trim(), line).not.toMatch(/ /);
    }
    for (const [a, b] of continuations(lines)) {
      // Wrapped once: the next line's first word did not fit on this one.
      expect(a.length + 1 + firstWord(b).length, `${JSON.stringify(a)}\n${JSON.stringify(b)}`).toBeGreaterThan(width);
    }
  });
});

describe('the sources keep their paragraphs; the help joins and wraps them', () => {
  it('a wide terminal gets each paragraph on one line', () => {
    const text = help(['resend'], 400);
    expect(text).toContain('\nQueue a new attempt of a webhook delivery (POST /v1/webhook_deliveries/{id}/redeliver), or, with --failed, of every failed delivery of every endpoint. Prints each delivery and its status.\n');
    expect(help([], 400)).toMatch(/\nExit codes: 0 ok, 1 the command failed .* 4 the server refused the API key, 5 a package the command needs is not installed \(serve --data needs libsql\)\.\n/);
  });

  it('prose joins paragraph lines and keeps blank and indented lines; wrap hangs list items under their text', () => {
    expect(prose('one\ntwo\n\nthree\n  example\nfour')).toBe('one two\n\nthree\n  example\nfour');
    expect(wrap('  --flag X   the description of a flag that is long', 40)).toBe('  --flag X   the description of a flag\n             that is long');
    expect(wrap('  pix-usdt-sandbox serve [--port N] [--host HOST] [--https]', 40)).toBe('  pix-usdt-sandbox serve [--port N]\n    [--host HOST] [--https]');
    expect(wrap('a-word-longer-than-forty-columns-stays-whole-on-its-line and more', 40)).toBe('a-word-longer-than-forty-columns-stays-whole-on-its-line\nand more');
  });

  it('the width is the terminal\'s, or 80 when stdout is not a terminal', () => {
    expect(terminalWidth({ isTTY: true, columns: 132 })).toBe(132);
    expect(terminalWidth({ isTTY: false, columns: 132 })).toBe(80);
    expect(terminalWidth({})).toBe(80);
  });
});
