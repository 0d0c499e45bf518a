/**
 * Per-tenant webhook state. The records live as plain JSON arrays in
 * `tenant.extensions.webhooks` (so `snapshot()` and `restore()` carry them with no code of
 * their own); the indexed collections that serve lookups and listings are built over the same
 * record objects, once per tenant object, and rebuilt after a restore. Deliveries are kept to
 * the newest `deliveryLogSize` per tenant, pending ones always (trimmed in batches, as the
 * event log).
 * @module
 */
import { Collection } from '../../core/collection.js';
import type { TenantState } from '../../core/state.js';
import { Lanes } from './lanes.js';
import type { DeliveryRec, EndpointRec } from './types.js';

interface StoredState {
  endpoints: EndpointRec[];
  deliveries: DeliveryRec[];
}

/** The webhook records of one tenant. */
export interface WebhookStore {
  endpoints: Collection<EndpointRec>;
  deliveries: Collection<DeliveryRec>;
  /** Pending deliveries per (endpoint, object), oldest event first (per-object order). */
  lanes: Lanes;
  addEndpoint(rec: EndpointRec): EndpointRec;
  addDelivery(rec: DeliveryRec): DeliveryRec;
}

/** Where a tenant keeps its webhook records: `tenant.extensions.webhooks` (a snapshot carries it). */
export const WEBHOOKS_EXTENSION = 'webhooks';

// The tenant's webhook records, or `undefined` when it never had an endpoint: the one reader of the extension.
function storedState(tenant: TenantState): StoredState | undefined {
  return tenant.extensions[WEBHOOKS_EXTENSION] as StoredState | undefined;
}

function build(tenant: TenantState, keep: number): WebhookStore {
  let data = storedState(tenant);
  if (!data) tenant.extensions[WEBHOOKS_EXTENSION] = data = { endpoints: [], deliveries: [] };
  const state = data;
  const endpoints = new Collection<EndpointRec>({ live: (e) => (e.deletedAt === null ? '1' : null) });
  const deliveries = new Collection<DeliveryRec>({
    endpoint: (d) => d.endpointId,
    endpoint_status: (d) => `${d.endpointId}|${d.status}`,
    // Keyed by the event id the delivery holds anyway (an endpoint|event key would be a new string each).
    event: (d) => d.eventId,
    pending: (d) => (d.status === 'pending' ? '1' : null),
  });
  for (const e of state.endpoints) endpoints.restore(e);
  const lanes = new Lanes();
  for (const d of state.deliveries) {
    // At the position it was stored at: a stored tenant's rows are keyed by it, and trimmed ones leave gaps.
    deliveries.restore(d);
    if (d.status === 'pending') lanes.add(d);
  }
  // The oldest finished deliveries beyond `keep` leave; pending ones are in flight and stay.
  const trim = (): void => {
    const excess = deliveries.size - keep;
    const drop: DeliveryRec[] = [];
    for (const d of deliveries.all()) {
      if (drop.length >= excess) break;
      if (d.status !== 'pending') drop.push(d);
    }
    if (drop.length === 0) return;
    deliveries.remove(drop);
    const gone = new Set(drop);
    state.deliveries = state.deliveries.filter((d) => !gone.has(d));
  };
  return {
    endpoints,
    deliveries,
    lanes,
    addEndpoint(rec) {
      state.endpoints.push(rec);
      return endpoints.insert(rec);
    },
    addDelivery(rec) {
      state.deliveries.push(rec);
      const added = deliveries.insert(rec);
      if (deliveries.size > keep * 2) trim();
      return added;
    },
  };
}

/** The stores of one sandbox, keyed by tenant object: a restore creates new tenant objects, so they rebuild. */
export class WebhookStores {
  readonly #stores = new WeakMap<TenantState, WebhookStore>();

  /** `keep`: the deliveries kept per tenant besides pending ones (`deliveryLogSize`). */
  constructor(readonly keep = DELIVERY_LOG_SIZE) {}

  /** The webhook store of a tenant (created empty on first use). */
  of(tenant: TenantState): WebhookStore {
    let store = this.#stores.get(tenant);
    if (!store) this.#stores.set(tenant, (store = build(tenant, this.keep)));
    return store;
  }

  /** The webhook store of a tenant that has webhook records, or `undefined` (nothing is added to a tenant that never had an endpoint). */
  find(tenant: TenantState): WebhookStore | undefined {
    return storedState(tenant) === undefined ? undefined : this.of(tenant);
  }
}

/** Finished deliveries kept per tenant by default (`deliveryLogSize`). */
export const DELIVERY_LOG_SIZE = 10_000;
