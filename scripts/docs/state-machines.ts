/**
 * docs/state-machines.md, generated from the transition tables of src/sandbox/core/machines.ts:
 * one Mermaid `stateDiagram-v2` per machine (one edge per transition row, in table order),
 * then the rows and refusals as tables.
 * @module
 */
import { CONVERSION_MACHINE, KYC_MACHINE, QUOTE_MACHINE, TRANSACTION_MACHINE } from '../../src/sandbox/core/machines.js';
import { GENERATED_NOTICE } from './notice.js';

/** The shape of a machine this generator reads (the engine's `Machine`, widened). */
export interface MachineTable {
  name: string;
  transitions: ReadonlyArray<{
    from: string | null;
    trigger: string;
    to: string;
    event: string | null;
    effects: readonly string[];
    reason?: string | undefined;
  }>;
  refusals: ReadonlyArray<{ from: string; trigger: string; error: string; message: string }>;
}

/** A machine and the name it is exported under. */
export interface DocumentedMachine {
  exportName: string;
  title: string;
  summary: string;
  machine: MachineTable;
}

/** The machines, in the order the page shows them. */
export const MACHINES: readonly DocumentedMachine[] = [
  {
    exportName: 'CONVERSION_MACHINE',
    title: 'Conversion',
    summary: 'An accepted quote, from the deposit to its end. `liquidated` is transient, on the way to `completed` or `failed`.',
    machine: CONVERSION_MACHINE,
  },
  {
    exportName: 'QUOTE_MACHINE',
    title: 'Quote',
    summary: 'A priced offer, valid for a few minutes, consumed by accepting it. Quote changes emit no webhook event.',
    machine: QUOTE_MACHINE,
  },
  {
    exportName: 'TRANSACTION_MACHINE',
    title: 'Transaction',
    summary: 'The settlement leg created by `POST /v1/transactions`.',
    machine: TRANSACTION_MACHINE,
  },
  {
    exportName: 'KYC_MACHINE',
    title: 'KYC review',
    summary: "A user's `kyc_status`. Forcing the status a user already has changes nothing and emits nothing.",
    machine: KYC_MACHINE,
  },
];

/** The label of one edge: the trigger, then the event emitted (and the standby reason). */
export function edgeLabel(row: MachineTable['transitions'][number]): string {
  const event = row.event === null ? 'no event' : row.event;
  return `${row.trigger} / ${event}${row.reason === undefined ? '' : ` (${row.reason})`}`;
}

// Mermaid's state grammar ends a transition description at `:`, `;` or a newline, and a state id
// at a space or a dash.
const UNSAFE_LABEL = /[:;\n]/;
const STATE_ID = /^\w+$/;

/** One Mermaid edge per transition row; creation rows (`from: null`) start at `[*]`. */
export function mermaidDiagram(machine: MachineTable): string {
  const lines = ['stateDiagram-v2'];
  for (const row of machine.transitions) {
    const label = edgeLabel(row);
    for (const state of [row.from, row.to]) {
      if (state !== null && !STATE_ID.test(state)) throw new Error(`${machine.name}: state ${JSON.stringify(state)} is not a valid Mermaid state id.`);
    }
    if (UNSAFE_LABEL.test(label)) throw new Error(`${machine.name}: the edge label ${JSON.stringify(label)} would break the Mermaid diagram.`);
    lines.push(`    ${row.from ?? '[*]'} --> ${row.to}: ${label}`);
  }
  return lines.join('\n');
}

const code = (value: string): string => `\`${value}\``;
const cell = (value: string): string => value.replaceAll('|', '\\|');

function transitionTable(machine: MachineTable): string[] {
  const lines = ['| From | Trigger | To | Event | Effects |', '|---|---|---|---|---|'];
  for (const row of machine.transitions) {
    const effects = row.effects.length === 0 ? '' : row.effects.map(code).join(', ');
    const event = row.event === null ? '' : code(row.event);
    const to = row.reason === undefined ? code(row.to) : `${code(row.to)} (${code(row.reason)})`;
    lines.push(`| ${row.from === null ? '(new)' : code(row.from)} | ${code(row.trigger)} | ${to} | ${event} | ${effects} |`);
  }
  return lines;
}

function refusalTable(machine: MachineTable): string[] {
  if (machine.refusals.length === 0) return [];
  const lines = ['', 'Refused moves (answered with a specific error instead of `invalid_transaction_state`):', '', '| From | Trigger | Error | Message |', '|---|---|---|---|'];
  for (const r of machine.refusals) lines.push(`| ${code(r.from)} | ${code(r.trigger)} | ${code(r.error)} | ${cell(r.message)} |`);
  return lines;
}

/** The whole page. Deterministic: the machines in {@link MACHINES} order, rows in table order. */
export function renderStateMachines(machines: readonly DocumentedMachine[] = MACHINES): string {
  const out = [
    '# State machines',
    '',
    GENERATED_NOTICE('src/sandbox/core/machines.ts'),
    '',
    'Each diagram is the transition table the sandbox runs (`step()` in `src/sandbox/core/machines.ts` reads the same rows):',
    'one edge per row, labelled `trigger / event emitted`. `[*]` is the creation. A move that no row allows answers',
    '409 `invalid_transaction_state`, unless a refusal row names another error. Effects are named steps that the',
    'services of the sandbox carry out (`src/sandbox/core`). Events are described in [webhooks.md](webhooks.md);',
    'the decisions behind the rows are in [decisions.md](decisions.md).',
  ];
  for (const { exportName, title, summary, machine } of machines) {
    out.push(
      '',
      `## ${title}`,
      '',
      `${summary} Source: ${code(exportName)}.`,
      '',
      '```mermaid',
      mermaidDiagram(machine),
      '```',
      '',
      ...transitionTable(machine),
      ...refusalTable(machine),
    );
  }
  return `${out.join('\n')}\n`;
}
