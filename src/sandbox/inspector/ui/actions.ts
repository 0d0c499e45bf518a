/**
 * Which actions the inspector offers on a conversion: those the conversion machine allows from
 * its state (the rows of `api/machines/conversion`), so a finished conversion is offered none.
 * @module
 */

/** The machine's triggers behind each action of the conversion page. */
export const ACTION_TRIGGERS = {
  deposit: ['pix_paid_exact', 'deposit_detected', 'deposit_confirmed_exact', 'deposit_under', 'deposit_over', 'deposit_late', 'deposit_in_standby'],
  fail: ['fail'],
  expire: ['expire', 'expire_holding_funds'],
  liquidate: ['liquidate', 'liquidate_onramp'],
  cancel: ['cancel'],
} as const;

/** An action of the conversion page. */
export type ConversionAction = keyof typeof ACTION_TRIGGERS;

/** The actions a row of the conversion machine allows from `state`. */
export function allowedActions(machine: ReadonlyArray<{ readonly from?: unknown; readonly trigger?: unknown }>, state: string): Set<ConversionAction> {
  const triggers = new Set(machine.filter((row) => row.from === state).map((row) => String(row.trigger)));
  return new Set((Object.keys(ACTION_TRIGGERS) as ConversionAction[]).filter((action) => ACTION_TRIGGERS[action].some((t) => triggers.has(t))));
}
