/**
 * What core code may touch: the `World` a service is handed (ids, sandbox-wide settings, shared
 * usage, `record` and `schedule`) and the `Scope` of one change. A tenant's price feed, limits
 * and timings are its own (`scope.tenant.settings`). Core declares it; the platform implements
 * it; nothing here knows of HTTP or plugins.
 * @module
 */
import type { EventType } from '../../models/index.js';
import type { Usage } from './limits.js';
import type { Random } from './random.js';
import type { SandboxEvent, StateChange, TenantState } from './state.js';
import type { Stamped, Version, VersionKind } from './versions.js';

/** Normalized platform settings. */
export interface PlatformSettings {
  environment: 'sandbox' | 'production';
  /** Start instant of a frozen clock; `null` follows real time. */
  start: number | null;
  seed: number | string | undefined;
  idempotencyTtlMs: number;
  eventLogSize: number;
  /** POST /v1/quotes per key per 60 s (0: no limit). */
  quoteRateLimit: number;
  /** Tenants one root's tree may make over the API (core/lineage.ts). */
  maxTenantsPerRoot: number;
}

/** The platform as a service sees it. */
export interface World {
  readonly settings: PlatformSettings;
  /** Ids and secrets (seeded when the sandbox is). */
  readonly random: Random;
  /** Volume used across every tenant (the platform level under shared platform limits). */
  readonly platformUsage: Usage;
  /** One shared copy of a short, often repeated string. */
  intern(value: string): string;
  /** Records an event about `record` (its object: the record's wire form now) on the tenant's log and emits it (plugins subscribe). */
  record<R extends Stamped>(tenant: TenantState, type: EventType, kind: VersionKind<R>, record: R, at: number): SandboxEvent;
  /** A compact version of a record as it is now (events and stored answers keep these). */
  version<R extends Stamped>(kind: VersionKind<R>, record: R): Version;
  /** The JSON of a version (`live`: just taken of the record as it is), the last of each kind kept. */
  textOf(version: Version, live?: boolean): string;
  /** Tells listeners that a conversion moved on its machine (emitted or not). */
  changed(tenant: TenantState, change: StateChange): void;
  /** Someone listens to moves (an open inspector, a `transition` listener): without one, no move is built. */
  readonly watchingMoves: boolean;
  /** Puts a timer of a known kind (see core/timers.ts) on the tenant's clock. */
  schedule(tenant: TenantState, at: number, kind: string, id: string): void;
  /** Keeps track of an asynchronous effect of a tenant so that `clock.advance` can wait for it. */
  waitUntil(promise: Promise<unknown>, tenantId?: string): void;
}

/** What every service receives: the world, the tenant and the instant of the change. */
export interface Scope {
  world: World;
  tenant: TenantState;
  at: number;
}
