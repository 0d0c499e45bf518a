/**
 * The shapes of the inspection API (`sandbox.inspector`, `GET /_inspector/api/*`): read-only
 * views of the sandbox's state. Secrets never appear: API keys and webhook secrets as prefixes.
 * @module
 */
import type { Conversion, Quote, Transaction, User } from '../../models/index.js';
import type { RequestLogEntry as InspectedRequest } from '../http/request-log.js';

// One answered request, as the request log keeps it: the one entry type of the inspector, a
// server's log feed (`/_sandbox/logs`) and `logs tail --json` (http/request-log.ts).
export type { InspectedRequest };

/** A tenant in the list (default first). */
export interface InspectedTenantSummary {
  /** The tenant's id. */
  id: string;
  /** True for the sandbox's default tenant. */
  default: boolean;
  /** Counts of its records (zeros when its data cannot be shown). */
  counts: { users: number; quotes: number; conversions: number; transactions: number; webhook_endpoints: number };
  /** The tenant's clock (ISO 8601); `null` when its data cannot be shown. */
  now: string | null;
  /**
   * Present when the tenant's data cannot be shown (a damaged record, a clock out of range): the
   * tenant is listed with this sentence, its page answers an error, and the others are shown.
   */
  problem?: string;
}

/** An API key, by prefix only. */
export interface InspectedApiKey {
  /** Key id. */
  id: string;
  /** Name given at creation. */
  name: string;
  /** The first 12 characters of the secret (`sk_test_xxxx`). */
  key_prefix: string;
  /** Capabilities of the key. */
  capabilities: string[];
  /** Whether it was revoked. */
  revoked: boolean;
}

/** A webhook endpoint, its secret by prefix only. */
export interface InspectedEndpoint {
  /** Endpoint id. */
  id: string;
  /** Where deliveries go. */
  url: string;
  /** `active` or `disabled`. */
  status: string;
  /** Subscribed event types (`*` for all). */
  event_types: string[];
  /** The first 10 characters of the signing secret. */
  secret_prefix: string;
  /** Deliveries made to it. */
  deliveries: number;
  /** Its circuit: attempts that keep ending without an answer stop for a cool-down (docs/sandbox-webhooks-and-faults.md). */
  circuit: InspectedCircuit;
}

/** An endpoint's circuit. */
export interface InspectedCircuit {
  /** `closed` (attempts go), `open` (none until `open_until`) or `half_open` (one trial goes, the others wait for it). */
  state: 'closed' | 'open' | 'half_open';
  /** Attempts in a row that ended without an answer (time-out, refused connection, no receiver). */
  consecutive_failures: number;
  /** Virtual time the cool-down ends; `null` when closed. */
  open_until: string | null;
  /** Pending deliveries it is delaying. */
  deferred: number;
}

/** A tenant's own price feed, limits and timings, as `GET /v1/test_helpers/price`, `/limits` and `/settings` answer its key. */
export interface InspectedSettings {
  /** The price feed in force. */
  price: { mid_rate: string; spread_bps: number; withdrawal_fee_usdt: string; available: boolean };
  /** The volume limits in force (BRL); `platform_scope` is the sandbox's. */
  limits: {
    platform: { daily: string; monthly: string };
    platform_scope: 'tenant' | 'shared';
    partner: { daily: string; monthly: string };
    user: { daily: string; monthly: string };
  };
  /** The timings in force (seconds). */
  timings: { quote_ttl_seconds: number; deposit_window_seconds: number; settlement_delay_seconds: number };
  /** The fields the tenant set itself, as dotted paths (`price.mid_rate`, `limits.user.daily`); the others are the sandbox's defaults. */
  changed: string[];
}

/** A tenant's whole state, newest first in each list (at most 200 per list). */
export interface InspectedTenant extends InspectedTenantSummary {
  /** Users with their KYC state. */
  users: User[];
  /** Quotes. */
  quotes: Quote[];
  /** Conversions. */
  conversions: Conversion[];
  /** Transactions. */
  transactions: Transaction[];
  /** Webhook endpoints (secret prefixes only). */
  webhook_endpoints: InspectedEndpoint[];
  /** API keys (prefixes only). */
  api_keys: InspectedApiKey[];
  /** Its own price feed, limits and timings. */
  settings: InspectedSettings;
}

/** One attempt of a delivery. */
export interface InspectedAttempt {
  /** Virtual time of the attempt. */
  at: string;
  /** Status the receiver answered (`null`: transport error). */
  status: number | null;
  /** Real milliseconds the receiver took. */
  latency_ms: number;
  /** Why the attempt failed, or `null`. */
  error: string | null;
}

/** One event's delivery to one endpoint. */
export interface InspectedDelivery {
  /** Delivery id (redeliver it with `POST /v1/webhook_deliveries/{id}/redeliver`). */
  id: string;
  /** The endpoint's id. */
  endpoint_id: string;
  /** The endpoint's URL (empty if it is gone). */
  url: string;
  /** `pending`, `succeeded` or `failed`. */
  status: string;
  /** Every attempt, oldest first. */
  attempts: InspectedAttempt[];
  /** Virtual time of the next retry, or `null`. */
  next_attempt_at: string | null;
  /** Set while the endpoint's circuit delays the next attempt: why, and when the retry schedule made it due. */
  deferred: { reason: 'circuit_open'; scheduled_at: string } | null;
  /** The signed raw body, exactly as sent. */
  payload: string;
}

/** A state change of a conversion and what it emitted. */
export interface InspectedStep {
  /** State before (`null`: the creation). */
  from: string | null;
  /** State after. */
  to: string;
  /** The machine's trigger. */
  trigger: string | null;
  /** Virtual time. */
  at: string;
  /** The event emitted, if any. */
  event: { id: string; type: string } | null;
  /** Deliveries of that event. */
  deliveries: InspectedDelivery[];
}

/** A conversion's page. */
export interface InspectedConversion {
  /** The tenant it belongs to. */
  tenant_id: string;
  /** The tenant's clock (ISO 8601). */
  now: string;
  /** The conversion as the API shows it. */
  conversion: Conversion;
  /** States visited, in order (the creation's state first). */
  path: string[];
  /** `machine`: every move was seen as it happened; `events`: rebuilt from the event log (moves without an event are missing). */
  path_source: 'machine' | 'events';
  /** State changes, oldest first, with their events and deliveries. */
  timeline: InspectedStep[];
  /** Requests that named or answered with this conversion or its quote, oldest first. */
  requests: InspectedRequest[];
}

/** A match of a search. */
export interface InspectedMatch {
  /** What was found. */
  kind: 'conversion' | 'quote' | 'user' | 'transaction' | 'request' | 'delivery' | 'event';
  /** Its tenant (`null` for a request refused before authentication). */
  tenant_id: string | null;
  /** Its id. */
  id: string;
  /** The conversion to open for it, when there is one. */
  conversion_id: string | null;
  /** Which field matched (`id`, `pix_e2e_id`, `usdt_tx_hash`, `request_id`...). */
  field: string;
}

/** Filter of the request log. */
export interface RequestFilter {
  /** Exact status (`404`) or class (`4xx`). */
  status?: string;
  /** Substring of the path. */
  path?: string;
  /** Exact request id. */
  request_id?: string;
  /** Only this tenant's requests. */
  tenant_id?: string;
}

/** One row of the conversion machine, for the diagram. */
export interface MachineRow {
  /** State before (`null`: the creation). */
  from: string | null;
  /** Trigger. */
  trigger: string;
  /** State after. */
  to: string;
  /** Event emitted, or `null`. */
  event: string | null;
}

/** The inspection API of a sandbox: read-only. */
export interface SandboxInspection {
  /** Every tenant, the default one first. */
  tenants(): InspectedTenantSummary[];
  /** A tenant's state. Throws a RangeError for an unknown tenant. */
  tenant(id: string): InspectedTenant;
  /** A conversion's page, or `null` if the tenant has no such conversion. */
  conversion(tenantId: string, id: string): InspectedConversion | null;
  /** The request log, newest first (the last 1,000 requests). */
  requests(filter?: RequestFilter): InspectedRequest[];
  /** Finds any id the API shows: conversion, quote, user, transaction, request, delivery, event, pix_e2e_id, usdt_tx_hash. */
  search(query: string): InspectedMatch[];
  /** The conversion machine's rows (the table docs/state-machines.md draws). */
  conversionMachine(): MachineRow[];
  /** Calls `listener` with each request as it is answered; returns the function that stops it. */
  onRequest(listener: (request: InspectedRequest) => void): () => void;
}

/** `sandbox.inspector`: the inspection API and the web console over it. */
export interface SandboxInspector extends SandboxInspection {
  /** The path the console is served under: `/_inspector/`. */
  readonly basePath: string;
  /**
   * Serves the console and its API for requests under {@link basePath} (404 elsewhere): mount it
   * in a dev server. Actions go through the sandbox's own `fetch` with the tenant's API key.
   */
  fetch(request: Request): Promise<Response>;
}
