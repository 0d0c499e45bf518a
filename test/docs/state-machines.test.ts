import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../scripts/docs/generated.js';
import { MACHINES, edgeLabel, mermaidDiagram, renderStateMachines } from '../../scripts/docs/state-machines.js';
import { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE } from '../../src/sandbox/core/machines.js';

interface Edge {
  from: string;
  to: string;
  label: string;
}

/** The `stateDiagram-v2` blocks of a Markdown page, each as its edges. */
function diagrams(markdown: string): Edge[][] {
  const blocks = [...markdown.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1] as string);
  return blocks.map((block) => {
    const lines = block.split('\n').map((l) => l.trim()).filter(Boolean);
    expect(lines[0]).toBe('stateDiagram-v2');
    return lines.slice(1).map((line) => {
      const match = /^(\S+) --> (\S+): (.+)$/.exec(line);
      expect(match, `not an edge: ${line}`).not.toBeNull();
      const [, from, to, label] = match as unknown as [string, string, string, string];
      return { from, to, label };
    });
  });
}

const committed = readFileSync(join(ROOT, 'docs/state-machines.md'), 'utf8');

describe('docs/state-machines.md', () => {
  it('documents every machine of the sandbox', () => {
    expect(MACHINES.map((m) => m.machine)).toEqual([CONVERSION_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE, KYC_MACHINE]);
  });

  it('has one diagram per machine and one edge per transition row, in table order', () => {
    const found = diagrams(committed);
    expect(found).toHaveLength(MACHINES.length);
    MACHINES.forEach(({ machine }, i) => {
      const edges = found[i] as Edge[];
      expect(edges, machine.name).toHaveLength(machine.transitions.length);
      machine.transitions.forEach((row, j) => {
        expect(edges[j], `${machine.name} row ${j}`).toEqual({ from: row.from ?? '[*]', to: row.to, label: edgeLabel(row) });
      });
    });
  });

  it('labels an edge with its trigger and the event it emits', () => {
    const accept = CONVERSION_MACHINE.transitions.find((r) => r.from === null);
    expect(accept).toBeDefined();
    expect(mermaidDiagram(CONVERSION_MACHINE)).toContain(`[*] --> awaiting_deposit: ${accept?.trigger} / ${accept?.event}`);
    const silent = QUOTE_MACHINE.transitions.find((r) => r.from === 'active' && r.trigger === 'consume');
    expect(silent?.event).toBeNull();
    expect(mermaidDiagram(QUOTE_MACHINE)).toContain('active --> consumed: consume / no event');
  });

  it('follows a change of the table (a row added to a copy shows up as an edge)', () => {
    const copy = {
      ...MACHINES[2]!,
      machine: {
        ...TRANSACTION_MACHINE,
        transitions: [...TRANSACTION_MACHINE.transitions, { from: 'completed', trigger: 'refund', to: 'refunded', event: null, effects: [] }],
      },
    };
    const page = renderStateMachines([copy]);
    const [edges] = diagrams(page);
    expect(edges).toHaveLength(TRANSACTION_MACHINE.transitions.length + 1);
    expect(edges?.at(-1)).toEqual({ from: 'completed', to: 'refunded', label: 'refund / no event' });
  });

  it('refuses a row that would break the Mermaid syntax', () => {
    const row = { from: 'a', trigger: 'go', to: 'b', event: null, effects: [] };
    expect(() => mermaidDiagram({ name: 'x', refusals: [], transitions: [{ ...row, trigger: 'go: now' }] })).toThrow(/would break the Mermaid diagram/);
    expect(() => mermaidDiagram({ name: 'x', refusals: [], transitions: [{ ...row, to: 'in review' }] })).toThrow(/not a valid Mermaid state id/);
  });

  it('says it is generated and how to regenerate it', () => {
    expect(committed).toContain('node --import tsx scripts/generate-docs.ts');
    expect(committed).toMatch(/Generated from/);
  });
});
