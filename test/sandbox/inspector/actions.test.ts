// The conversion page offers the actions the conversion machine allows from the conversion's
// state (issue 36: it offered every action on finished conversions).
import { describe, expect, it } from 'vitest';
import { CONVERSION_STATUSES } from '../../../src/models/conversions.js';
import { CONVERSION_MACHINE } from '../../../src/sandbox/core/machines.js';
import { ACTION_TRIGGERS, allowedActions } from '../../../src/sandbox/inspector/ui/actions.js';
import { setup } from '../fixture.js';

describe('the inspector’s conversion actions', () => {
  it('follow the machine the inspector serves, state by state', async () => {
    const { sandbox } = setup();
    const res = await sandbox.inspector.fetch(new Request('http://localhost/_inspector/api/machines/conversion'));
    const rows = (await res.json()) as Array<{ from: string | null; trigger: string }>;
    const offered = Object.fromEntries(CONVERSION_STATUSES.map((state) => [state, [...allowedActions(rows, state)].sort()]));
    expect(offered).toEqual({
      awaiting_deposit: ['cancel', 'deposit', 'expire', 'fail'],
      funded: ['fail'],
      standby: ['deposit', 'fail', 'liquidate'],
      liquidated: ['fail'],
      completed: [],
      failed: [],
      expired: [],
      canceled: [],
      abandoned: [],
    });
  });

  it('name only triggers the machine has', () => {
    const triggers = new Set(CONVERSION_MACHINE.transitions.map((row) => row.trigger));
    for (const [action, names] of Object.entries(ACTION_TRIGGERS)) for (const name of names) expect(triggers.has(name), `${action}: ${name}`).toBe(true);
  });
});
