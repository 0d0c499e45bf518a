/**
 * Route definitions: method, path, capability, idempotency rule, the shared schemas that
 * validate params, query and body, and a handler that returns data or throws an ApiError.
 * @module
 */
import type * as z from 'zod/mini';
import type { Capability } from '../../core/capabilities.js';
import type { Platform } from '../../core/platform.js';
import type { CompactBody, KeyRec, TenantState, UserRec } from '../../core/state.js';
import { KYC_VIEW, type Stamped, USER, type VersionKind, ViewedVersion } from '../../core/versions.js';

/** What a handler receives: a normalized, validated request. */
export interface RouteContext<P = unknown, Q = unknown, B = unknown> {
  world: Platform;
  tenant: TenantState;
  key: KeyRec;
  /** Virtual time of the request. */
  at: number;
  requestId: string;
  params: P;
  query: Q;
  body: B;
}

/** What a handler returns. */
export interface Reply {
  status: number;
  body?: unknown;
  /** The body as a version of a record (idempotency keeps that, not the text; see {@link recordReply}). */
  compact?: CompactBody;
}

/** A route of the world. */
export interface RouteDef {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  capability: Capability;
  /** Whether mutations need an Idempotency-Key (`optional` for the KYC helper and the sandbox extensions). */
  idempotency: 'required' | 'optional';
  rateLimited?: boolean;
  /** Test helpers: absent in production. */
  sandboxOnly?: boolean;
  params?: z.ZodMiniType | undefined;
  query?: z.ZodMiniType | undefined;
  body?: z.ZodMiniType | undefined;
  /** Checks the parsed JSON before the schema, for a clearer message than the schema's. */
  precheck?: ((body: unknown) => void) | undefined;
  /** The largest body taken, in characters (default 1 MB; a tenant snapshot's route takes more). */
  maxBody?: number | undefined;
  handler(ctx: RouteContext<never, never, never>): Reply | Promise<Reply>;
}

/** Declares a route with its handler typed from its schemas. */
export function define<P = Record<string, never>, Q = Record<string, never>, B = Record<string, never>>(def: {
  method: RouteDef['method'];
  path: string;
  capability: Capability;
  idempotency?: RouteDef['idempotency'];
  rateLimited?: boolean;
  sandboxOnly?: boolean;
  params?: z.ZodMiniType<P>;
  query?: z.ZodMiniType<Q>;
  body?: z.ZodMiniType<B>;
  precheck?: (body: unknown) => void;
  maxBody?: number;
  handler(ctx: RouteContext<P, Q, B>): Reply | Promise<Reply>;
}): RouteDef {
  return { idempotency: 'required', ...def } as unknown as RouteDef;
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
export function recordReply<R extends Stamped>(world: Platform, status: 200 | 201, kind: VersionKind<R>, record: R): Reply {
  return { status, body: kind.out(record), compact: world.version(kind, record) };
}

/** The KYC status view of a user (200), kept as the user's version (see {@link recordReply}). */
export function kycReply(world: Platform, user: UserRec): Reply {
  return { status: 200, body: KYC_VIEW(user), compact: new ViewedVersion(KYC_VIEW, world.version(USER, user)) };
}
