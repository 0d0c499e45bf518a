import type { ConversionStatus, TransactionStatus } from '../../models/conversions.js';

/**
 * Which states can follow which, as the reference's state machines say: for each state, the
 * states one move away. A state reachable from another by one move or more is *newer* than it.
 * The sandbox runs the same machines (src/sandbox/core/machines.ts); test/webhooks/order.test.ts
 * ties the two tables, so they cannot drift. Kept here, as data, because the client side must
 * not import the sandbox (and this entry must not import zod).
 */
const CONVERSION_MOVES: Readonly<Record<ConversionStatus, readonly ConversionStatus[]>> = {
  awaiting_deposit: ['funded', 'standby', 'canceled', 'expired', 'failed'],
  funded: ['completed', 'failed'],
  standby: ['liquidated', 'abandoned', 'failed'],
  liquidated: ['completed', 'failed'],
  completed: [],
  failed: [],
  expired: [],
  canceled: [],
  abandoned: [],
};

/**
 * The reference lists `buying_crypto`, `sending_crypto` and `refunded` without their moves; the
 * sandbox settles in one step and never shows them. They are placed in the order their names
 * tell (paid, then bought, then sent; a refund instead of the delivery), so that a partner
 * talking to a platform that shows them still orders them.
 */
const TRANSACTION_MOVES: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  pending_payment: ['payment_received', 'expired', 'cancelled'],
  payment_received: ['buying_crypto', 'sending_crypto', 'completed', 'failed', 'refunded'],
  buying_crypto: ['sending_crypto', 'completed', 'failed', 'refunded'],
  sending_crypto: ['completed', 'failed', 'refunded'],
  completed: [],
  failed: [],
  refunded: [],
  cancelled: [],
  expired: [],
};

/** The resources whose states are ordered: conversions and transactions. */
export type OrderedResource = 'conversion' | 'transaction';

/** @internal The tables, by resource (read by the test that ties them to the sandbox's machines). */
export const STATE_MOVES: Readonly<Record<OrderedResource, Readonly<Record<string, readonly string[]>>>> = {
  conversion: CONVERSION_MOVES,
  transaction: TRANSACTION_MOVES,
};

const reachable = /* @__PURE__ */ new Map<string, ReadonlySet<string>>();

/** Every state reachable from `state` by one move or more (the tables have no cycle). */
function later(kind: OrderedResource, state: string): ReadonlySet<string> | undefined {
  const moves = STATE_MOVES[kind];
  if (!Object.prototype.hasOwnProperty.call(moves, state)) return undefined;
  const key = `${kind}:${state}`;
  let set = reachable.get(key);
  if (set === undefined) {
    const found = new Set<string>();
    const queue = [...(moves[state] as readonly string[])];
    for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
      if (found.has(next)) continue;
      found.add(next);
      queue.push(...(moves[next] ?? []));
    }
    reachable.set(key, (set = found));
  }
  return set;
}

/**
 * How an incoming state stands against a stored one:
 * - `newer`: the incoming state comes after the stored one (one move or more);
 * - `same`: the same state;
 * - `older`: the stored state comes after the incoming one (a late delivery: ignore it);
 * - `unrelated`: neither follows the other (two branches of the machine), or a state this
 *   version of the SDK does not know.
 */
export type StateOrder = 'newer' | 'same' | 'older' | 'unrelated';

/**
 * Compares an incoming state of a conversion or transaction with the stored one, from the
 * reference's state machines. Deliveries arrive out of order (a retry comes after later events),
 * so a partner updates its copy only when the incoming state is newer.
 *
 * @example
 * ```ts
 * compareStates('conversion', 'completed', 'funded'); // 'older': a late delivery
 * compareStates('conversion', 'standby', 'liquidated'); // 'newer'
 * ```
 */
export function compareStates(kind: OrderedResource, stored: string, incoming: string): StateOrder {
  if (stored === incoming) return 'same';
  if (later(kind, stored)?.has(incoming) === true) return 'newer';
  if (later(kind, incoming)?.has(stored) === true) return 'older';
  return 'unrelated';
}

/**
 * True when `incoming` comes after `stored` in the resource's state machine, or nothing is
 * stored yet. A terminal state (`completed`, `failed`, `expired`, `canceled`, `abandoned`) is
 * never followed, so it is never overwritten; `funded` after `completed` is stale.
 */
export function isNewerState(kind: OrderedResource, stored: string | null | undefined, incoming: string): boolean {
  return stored == null || compareStates(kind, stored, incoming) === 'newer';
}

/** True for a state no move leaves (for a state this SDK does not know: false). */
export function isTerminalState(kind: OrderedResource, state: string): boolean {
  return later(kind, state)?.size === 0;
}

/** What {@link shouldApplySnapshot} reads of a stored copy and of an incoming snapshot. */
export interface StateSnapshot {
  /** The resource's state. */
  status: string;
  /** When it last changed (ISO 8601). */
  updated_at: string;
}

/**
 * Whether an incoming snapshot of a conversion or transaction (a webhook's `data.object`, or a
 * resource read back) should replace the stored copy: yes when nothing is stored or its state is
 * newer; no when it is older; in the same state (a standby whose `received_amount` grew), when it
 * changed later (`updated_at`). States the machine does not relate (or does not know) fall back
 * to `updated_at`, except that a terminal stored state is never overwritten.
 *
 * @example
 * ```ts
 * const stored = await db.conversion(event.data.object.id);
 * if (shouldApplySnapshot('conversion', stored, event.data.object)) await db.save(event.data.object);
 * ```
 */
export function shouldApplySnapshot(kind: OrderedResource, stored: StateSnapshot | null | undefined, incoming: StateSnapshot): boolean {
  if (stored == null) return true;
  const order = compareStates(kind, stored.status, incoming.status);
  if (order === 'newer') return true;
  if (order === 'older') return false;
  if (order === 'unrelated' && isTerminalState(kind, stored.status)) return false;
  return Date.parse(incoming.updated_at) > Date.parse(stored.updated_at);
}
