// The state-order helper of pix-usdt/webhooks/receiver, and the tie between its client-side table and the
// machines the sandbox runs (src/sandbox/core/machines.ts): the two cannot drift.
import { describe, expect, it } from 'vitest';
import { CONVERSION_STATUSES, TRANSACTION_STATUSES } from '../../src/models/index.js';
import { CONVERSION_MACHINE, type Machine, TRANSACTION_MACHINE } from '../../src/sandbox/core/machines.js';
import { compareStates, isNewerState, isTerminalState, shouldApplySnapshot } from '../../src/webhooks/receiver/index.js';
import { STATE_MOVES } from '../../src/webhooks/receiver/order.js';

/** Reachability (one move or more, self-loops left out) of a sandbox machine. */
function closure(machine: Machine<string, string, string>): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  for (const row of machine.transitions) {
    if (row.from === null || row.from === row.to) continue;
    if (!next.has(row.from)) next.set(row.from, new Set());
    next.get(row.from)?.add(row.to);
  }
  const reach = new Map<string, Set<string>>();
  const states = new Set(machine.transitions.flatMap((r) => (r.from === null ? [r.to] : [r.from, r.to])));
  for (const state of states) {
    const found = new Set<string>();
    const queue = [...(next.get(state) ?? [])];
    for (let s = queue.pop(); s !== undefined; s = queue.pop()) {
      if (found.has(s)) continue;
      found.add(s);
      queue.push(...(next.get(s) ?? []));
    }
    reach.set(state, found);
  }
  return reach;
}

const MACHINES = [
  ['conversion', CONVERSION_MACHINE, CONVERSION_STATUSES, []],
  // The reference lists these transaction states without their moves; the sandbox never shows them.
  ['transaction', TRANSACTION_MACHINE, TRANSACTION_STATUSES, ['buying_crypto', 'sending_crypto', 'refunded']],
] as const;

describe.each(MACHINES)('the %s table is the sandbox machine', (kind, machine, statuses, clientOnly) => {
  const sandbox = closure(machine as Machine<string, string, string>);

  it('covers every state of the model, and only the listed ones are absent from the sandbox machine', () => {
    expect(Object.keys(STATE_MOVES[kind]).sort()).toEqual([...statuses].sort());
    expect(statuses.filter((s) => !sandbox.has(s)).sort()).toEqual([...clientOnly].sort());
  });

  it('orders every pair of sandbox states as the sandbox machine reaches them', () => {
    for (const [from, reach] of sandbox) {
      for (const to of sandbox.keys()) {
        const expected = from === to ? 'same' : reach.has(to) ? 'newer' : sandbox.get(to)?.has(from) ? 'older' : 'unrelated';
        expect(compareStates(kind, from, to), `${from} -> ${to}`).toBe(expected);
      }
    }
  });

  it('calls terminal exactly the states the sandbox machine never leaves', () => {
    for (const [state, reach] of sandbox) expect(isTerminalState(kind, state), state).toBe(reach.size === 0);
  });
});

describe('the state-order helper', () => {
  it('never lets a late delivery overwrite a later state, and never overwrites a terminal state', () => {
    expect(compareStates('conversion', 'completed', 'funded')).toBe('older');
    expect(isNewerState('conversion', 'completed', 'funded')).toBe(false);
    expect(isNewerState('conversion', 'funded', 'completed')).toBe(true);
    expect(isNewerState('conversion', 'awaiting_deposit', 'liquidated')).toBe(true); // standby and liquidation events lost
    expect(isNewerState('conversion', null, 'awaiting_deposit')).toBe(true);
    for (const terminal of ['completed', 'failed', 'expired', 'canceled', 'abandoned']) {
      for (const other of CONVERSION_STATUSES) expect(isNewerState('conversion', terminal, other), `${terminal} <- ${other}`).toBe(false);
    }
    expect(compareStates('conversion', 'funded', 'standby')).toBe('unrelated');
    expect(compareStates('transaction', 'payment_received', 'sending_crypto')).toBe('newer');
    expect(compareStates('transaction', 'completed', 'pending_payment')).toBe('older');
  });

  it('applies a snapshot when newer, or in the same state when changed later; an unknown state only over a non-terminal one', () => {
    const at = (status: string, minute: number) => ({ status, updated_at: `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z` });
    expect(shouldApplySnapshot('conversion', null, at('awaiting_deposit', 0))).toBe(true);
    expect(shouldApplySnapshot('conversion', at('completed', 5), at('funded', 9))).toBe(false); // state wins over time
    expect(shouldApplySnapshot('conversion', at('funded', 9), at('completed', 5))).toBe(true);
    expect(shouldApplySnapshot('conversion', at('standby', 1), at('standby', 3))).toBe(true); // received_amount grew
    expect(shouldApplySnapshot('conversion', at('standby', 3), at('standby', 3))).toBe(false);
    expect(shouldApplySnapshot('conversion', at('standby', 3), at('standby', 1))).toBe(false);
    expect(shouldApplySnapshot('conversion', at('awaiting_deposit', 1), at('on_hold', 2))).toBe(true); // a state added later
    expect(shouldApplySnapshot('conversion', at('completed', 1), at('on_hold', 2))).toBe(false);
  });
});
