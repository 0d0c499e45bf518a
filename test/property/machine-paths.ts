/**
 * The reference model's view of the machines: can an observed change of a resource, from the
 * status seen at the previous step to the status seen now, together with the events recorded
 * for it in between, be explained by a path of rows of the machine (src/sandbox/core/machines.ts)?
 * A path may be empty (no change, no event), and rows without an event may sit anywhere on it;
 * every row with an event must match the next recorded event (its type, and the status of the
 * snapshot it carries must be the row's `to`), and every recorded event must be used.
 */
import type { Machine, Transition } from '../../src/sandbox/index.js';

/** One recorded event, reduced to what the check needs. */
export interface SeenEvent {
  type: string;
  /** The status the event's snapshot carries (`status`, or `kyc_status` for users). */
  status: string | undefined;
}

type AnyRow = Transition<string, string, string>;

/**
 * True when a path of at most `maxSteps` rows leads from `from` to `to` and emits exactly
 * `events`, in order. `allow` filters rows (e.g. by direction).
 */
export function explains(
  machine: Machine<string, string, string>,
  from: string | null,
  to: string,
  events: readonly SeenEvent[],
  allow: (row: AnyRow) => boolean = () => true,
  maxSteps = 5,
): boolean {
  const visit = (node: string | null, used: number, depth: number): boolean => {
    if (node === to && used === events.length) return true;
    if (depth === maxSteps) return false;
    for (const row of machine.transitions) {
      if (row.from !== node || !allow(row)) continue;
      if (row.event === null) {
        // Self-loops without an event change nothing visible: taking one is pointless.
        if (row.from !== row.to && visit(row.to, used, depth + 1)) return true;
        continue;
      }
      const next = events[used];
      if (next && next.type === row.event && (next.status === undefined || next.status === row.to) && visit(row.to, used + 1, depth + 1)) return true;
    }
    return false;
  };
  return visit(from, 0, 0);
}
