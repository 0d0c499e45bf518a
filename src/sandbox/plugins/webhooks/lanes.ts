/**
 * Lanes: the pending deliveries of one object (a user, a conversion, a transaction) to one
 * endpoint, oldest event first. The delivery service reads them to send an object's events in
 * the order they happened (docs/decisions.md, "Webhook order per object"): a delivery waits
 * while an earlier one in its lane is in flight or has failed fewer times than the hold allows.
 * Lanes are derived from the records (rebuilt with the store after a restore), never stored.
 * @module
 */
import type { DeliveryRec } from './types.js';

const OBJECT_ID = /"data":\{"object":\{"id":"([^"\\]+)"/;

/**
 * The id of the object an event envelope is about, read from the signed body (the envelope is
 * written by `JSON.stringify` with `id` first in `data.object`); `null` when it has none.
 */
export function objectIdOf(payload: string): string | null {
  const match = OBJECT_ID.exec(payload);
  if (match) return match[1] as string;
  try {
    const id = (JSON.parse(payload) as { data?: { object?: { id?: unknown } } }).data?.object?.id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

/** The lanes of one tenant. */
export class Lanes {
  readonly #lanes = new Map<string, DeliveryRec[]>();
  readonly #keys = new WeakMap<DeliveryRec, string | null>();

  #key(d: DeliveryRec): string | null {
    let key = this.#keys.get(d);
    if (key === undefined) {
      // A payload held as its logged event knows its object without reading the JSON.
      const object = typeof d.payload === 'string' ? objectIdOf(d.payload) : d.payload.event.objectId || null;
      key = object === null ? null : `${d.endpointId}|${object}`;
      this.#keys.set(d, key);
    }
    return key;
  }

  /** Puts a pending delivery in its lane, in event order (a redelivery goes back to its place). */
  add(d: DeliveryRec): void {
    const key = this.#key(d);
    if (key === null) return;
    let lane = this.#lanes.get(key);
    if (!lane) this.#lanes.set(key, (lane = []));
    if (lane.includes(d)) return;
    let i = lane.length;
    while (i > 0 && (lane[i - 1] as DeliveryRec).seq > d.seq) i--;
    lane.splice(i, 0, d);
  }

  /** Takes a delivery that is no longer pending out of its lane. */
  remove(d: DeliveryRec): void {
    const key = this.#key(d);
    if (key === null) return;
    const lane = this.#lanes.get(key);
    if (!lane) return;
    const i = lane.indexOf(d);
    if (i >= 0) lane.splice(i, 1);
    if (lane.length === 0) this.#lanes.delete(key);
  }

  /** The lane of a delivery, oldest event first (empty for an event about no object). */
  of(d: DeliveryRec): readonly DeliveryRec[] {
    const key = this.#key(d);
    return key === null ? [] : (this.#lanes.get(key) ?? []);
  }
}
