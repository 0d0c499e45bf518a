/** docs/parity.md lists every scenario of the library and every option of the command. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SCENARIOS } from 'pix-usdt/parity';
import { parseCommand } from '../../src/server/cli/program.js';

const doc = readFileSync(new URL('../../docs/parity.md', import.meta.url), 'utf8');

describe('docs/parity.md', () => {
  it('names every scenario in its table', () => {
    const table = doc.slice(doc.indexOf('## The scenarios'), doc.indexOf('## Reading the report'));
    expect(SCENARIOS.map((s) => s.id).filter((id) => !table.includes(`\`${id}\``))).toEqual([]);
  });

  it('documents every option of the command', () => {
    const help = parseCommand(['conformance', '--help'], { helpWidth: 400 });
    if (help.kind !== 'help') throw new Error('conformance --help is not help');
    const options = [...help.text.matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1] as string).filter((o) => o !== '--help');
    expect(options.length).toBeGreaterThan(8);
    expect(options.filter((o) => !doc.includes(o))).toEqual([]);
  });
});
