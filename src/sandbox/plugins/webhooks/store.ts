/**
 * Per-tenant webhook state. The records live as plain JSON arrays in
 * `tenant.extensions.webhooks` (so `snapshot()` and `restore()` carry them with no code of
 * their own); the indexed collections that serve lookups and listings are built over the same
 * record objects, once per tenant object, and rebuilt after a restore.
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

const KEY = 'webhooks';

function build(tenant: TenantState): WebhookStore {
  let data = tenant.extensions[KEY] as StoredState | undefined;
  if (!data) tenant.extensions[KEY] = data = { endpoints: [], deliveries: [] };
  const state = data;
  const endpoints = new Collection<EndpointRec>({ live: (e) => (e.deletedAt === null ? '1' : null) });
  const deliveries = new Collection<DeliveryRec>({
    endpoint: (d) => d.endpointId,
    endpoint_status: (d) => `${d.endpointId}|${d.status}`,
    endpoint_event: (d) => `${d.endpointId}|${d.eventId}`,
    pending: (d) => (d.status === 'pending' ? '1' : null),
  });
  for (const e of state.endpoints) endpoints.insert(e);
  const lanes = new Lanes();
  for (const d of state.deliveries) {
    deliveries.insert(d);
    if (d.status === 'pending') lanes.add(d);
  }
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
      return deliveries.insert(rec);
    },
  };
}

/** The stores of one sandbox, keyed by tenant object: a restore creates new tenant objects, so they rebuild. */
export class WebhookStores {
  readonly #stores = new WeakMap<TenantState, WebhookStore>();

  /** The webhook store of a tenant (created empty on first use). */
  of(tenant: TenantState): WebhookStore {
    let store = this.#stores.get(tenant);
    if (!store) this.#stores.set(tenant, (store = build(tenant)));
    return store;
  }
}
