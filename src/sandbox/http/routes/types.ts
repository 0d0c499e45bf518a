/**
 * Route definitions: method, path, capability, idempotency rule, the shared schemas that
 * validate params, query and body, and a handler that returns data or throws an ApiError.
 * @module
 */
import type * as z from 'zod/mini';
import type { Capability } from '../../core/capabilities.js';
import type { Platform } from '../../core/platform.js';
import type { SettingsScope } from '../../core/settings.js';
import type { CompactBody, KeyRec, TenantState, UserRec } from '../../core/state.js';
import { KYC_VIEW, type Stamped, USER, type VersionKind, ViewedVersion } from '../../core/versions.js';
import type { World } from '../../core/world.js';

/**
 * The platform as a route's handler sees it: what a domain service is handed (`World`: ids,
 * settings, records and events, timers; pass it as a `Scope`'s `world`), the defaults a tenant's
 * settings change against (`SettingsScope`), and the few things only routes do: sign list
 * cursors, issue a key, make a tenant (within its tree's bound), change a tenant's settings, read its event log. Tenant
 * documents come through a port of their own (`TenantTransfer`, test-helpers.ts).
 */
export interface RoutePlatform
  extends World,
    SettingsScope,
    Pick<Platform, 'cursorSecret' | 'issueKey' | 'createTenant' | 'claimTenant' | 'knownCapability' | 'changeSettings' | 'eventsOf'> {}

/** What a handler receives: a normalized, validated request. */
export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  /** The platform, as far as a route needs it. */
  platform: RoutePlatform;
  /** The caller's tenant. */
  tenant: TenantState;
  /** The caller's API key. */
  key: KeyRec;
  /** Virtual time of the request. */
  at: number;
  /** The request's `req_...` id. */
  requestId: string;
  /** Path parameters, as the route's `params` schema parsed them. */
  params: P;
  /** Query, as the route's `query` schema parsed it. */
  query: Q;
  /** Body, as the route's `body` schema parsed it. */
  body: B;
}

/** What a handler returns. */
export interface Reply {
  status: number;
  body?: unknown;
  /** The body already as JSON (a record's wire form, {@link recordReply}): sent as it is. */
  text?: string;
  /** The body as a version of a record (idempotency keeps that, not the text; see {@link recordReply}). */
  compact?: CompactBody;
}

/**
 * A route of the app. A list of routes holds them as `RouteDef` (their input `unknown`); each
 * route's handler is called with what its own schemas parsed (the `validate` stage), which is
 * what {@link define} typed it with.
 */
export interface RouteDef<P = unknown, Q = unknown, B = unknown> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  capability: Capability;
  /** Whether mutations need an Idempotency-Key (`optional` for the KYC helper and the sandbox extensions). */
  idempotency: 'required' | 'optional';
  rateLimited?: boolean;
  /** Test helpers: absent in production. */
  sandboxOnly?: boolean;
  params?: z.ZodMiniType<P> | undefined;
  query?: z.ZodMiniType<Q> | undefined;
  body?: z.ZodMiniType<B> | undefined;
  /** Checks the parsed JSON before the schema, for a clearer message than the schema's. */
  precheck?: ((body: unknown) => void) | undefined;
  /** The largest body taken, in characters (default 1 MB; a tenant snapshot's route takes more). */
  maxBody?: number | undefined;
  handler(ctx: RouteContext<P, Q, B>): Reply | Promise<Reply>;
}

/** Declares a route with its handler typed from its schemas (`idempotency` defaults to `required`). */
export function define<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(
  def: Omit<RouteDef<P, Q, B>, 'idempotency'> & { idempotency?: RouteDef['idempotency'] },
): RouteDef<P, Q, B> {
  return { idempotency: 'required', ...def };
}

/** 200 with a body. */
export const ok = (body: unknown): Reply => ({ status: 200, body });
/** 201 with a body. */
export const created = (body: unknown): Reply => ({ status: 201, body });

/**
 * A reply of `record`'s wire form now (200 or 201), with the record's version: an idempotency
 * record keeps that version rather than the answer's text (core/versions.ts), and rebuilds the
 * same bytes on replay. The reply of every mutation that answers a user, quote, conversion or
 * transaction.
 */
export function recordReply<R extends Stamped>(platform: World, status: 200 | 201, kind: VersionKind<R>, record: R): Reply {
  const compact = platform.version(kind, record);
  return { status, text: platform.textOf(compact, true), compact };
}

/**
 * 200 with a record's wire form, read through its version: when the record has not changed
 * since its last answer or event, that answer's JSON is sent again (`textOf`) instead of
 * building it anew. The reply of every read of one user, quote, conversion or transaction.
 */
export function recordOk<R extends Stamped>(platform: World, kind: VersionKind<R>, record: R): Reply {
  return { status: 200, text: platform.textOf(platform.version(kind, record), true) };
}

/** The KYC status view of a user (200), kept as the user's version (see {@link recordReply}). */
export function kycReply(platform: World, user: UserRec): Reply {
  return { status: 200, body: KYC_VIEW(user), compact: new ViewedVersion(KYC_VIEW, platform.version(USER, user)) };
}
