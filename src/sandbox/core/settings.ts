/**
 * A tenant's settings: its price feed, volume limits and timings (quote TTL, deposit window,
 * settlement delay), beside the domain's fixed timings (standby, KYC validity). Every tenant
 * starts from the sandbox's defaults (the `createSandbox` options, or the `serve` flags) and keeps
 * what it changed itself (`TenantState.ownSettings`, a small plain-JSON part of its snapshot);
 * what is in force is the defaults overlaid with that. No request or call of one tenant changes
 * another's.
 *
 * One validation for every face: the wire schemas of src/models (`SetPriceBody`,
 * `SetLimitsBody`, `SetSettingsBody`, from which docs/openapi.json is generated) plus the
 * operator's rules below. The routes parse with them (a `validation_error` envelope); the
 * options, the in-process setters ({@link settingsFromOptions}: a `RangeError`) and the serve
 * flags ({@link parseSettings}: a usage error naming the flag) call this module.
 * @module
 */
import { type Issue, SetLimitsBody, SetPriceBody, SetSettingsBody, parseRequest, summarizeIssues } from '../../models/index.js';
import { ApiError } from './errors.js';
import { DEFAULT_LIMITS, type LimitPair, type LimitSettings } from './limits.js';
import { DEFAULT_PRICING, type PricingSettings } from './pricing.js';

/** A tenant's timings, in seconds (kept to the millisecond). */
export interface TimingSettings {
  /** How long a quote stays acceptable (default 300; the reference also mentions 30). */
  quoteTtlSeconds: number;
  /** How long a conversion or a transaction waits for its deposit (default 900). */
  depositWindowSeconds: number;
  /** From a Pix payout dispatched (a conversion funded) to its settlement (default 60). */
  settlementDelaySeconds: number;
}

/** The default timings. */
export const DEFAULT_TIMINGS: Readonly<TimingSettings> = Object.freeze({ quoteTtlSeconds: 300, depositWindowSeconds: 900, settlementDelaySeconds: 60 });

// The reference's fixed timings: no setting changes them.
/** How long a conversion waits in standby before it is abandoned: 7 days. */
export const STANDBY_MS = 7 * 86_400_000;
/** How long a KYC approval lasts: 365 days. */
export const KYC_VALIDITY_MS = 365 * 86_400_000;

/** Whose platform limit applies: each tenant its own (`tenant`, default) or one for all (`shared`, the operator's choice). */
export type PlatformScope = 'tenant' | 'shared';

/** The settings in force for a tenant. Never mutated: a change builds a new object. */
export interface TenantSettings {
  readonly price: Readonly<PricingSettings>;
  /** With `platformScope` always set; under `shared`, `platform` is the operator's (the defaults'). */
  readonly limits: Readonly<LimitSettings> & { readonly platformScope: PlatformScope };
  readonly timings: Readonly<TimingSettings>;
}

/** A change of the volume limits: the levels a tenant may set. */
export interface LimitsPatch {
  platform?: Partial<LimitPair>;
  partner?: Partial<LimitPair>;
  user?: Partial<LimitPair>;
}

/** What a tenant changed of its settings (its snapshot part): only the fields it set. */
export interface OwnSettings {
  price?: Partial<PricingSettings>;
  limits?: LimitsPatch;
  timings?: Partial<TimingSettings>;
}

/** The three kinds of settings. */
export type SettingsKind = keyof OwnSettings;

/** What the operator sets once for the whole sandbox. */
export interface SettingsScope {
  readonly defaults: TenantSettings;
  readonly platformScope: PlatformScope;
}

const SCHEMAS = { price: SetPriceBody, limits: SetLimitsBody, timings: SetSettingsBody } as const;

// Option (in-process) name -> wire name. The limits' names are the same on both faces.
const WIRE_NAMES: Record<SettingsKind, Record<string, string>> = {
  price: { midRate: 'mid_rate', spreadBps: 'spread_bps', withdrawalFeeUsdt: 'withdrawal_fee_usdt', available: 'available' },
  limits: { platform: 'platform', partner: 'partner', user: 'user' },
  timings: { quoteTtlSeconds: 'quote_ttl_seconds', depositWindowSeconds: 'deposit_window_seconds', settlementDelaySeconds: 'settlement_delay_seconds' },
};
const OPTION_NAMES = Object.fromEntries(
  Object.entries(WIRE_NAMES).map(([kind, names]) => [kind, Object.fromEntries(Object.entries(names).map(([option, wire]) => [wire, option]))]),
) as Record<SettingsKind, Record<string, string>>;

/** Why a `platform_scope` other than the one in force is refused. */
export const PLATFORM_SCOPE_IS_THE_OPERATORS =
  "Read-only: the platform scope is the operator's (serve --shared-platform-limits, or createSandbox({ limits: { platformScope } })); send it unchanged or leave it out";
/** Why a `platform` level other than the one in force is refused under shared platform limits. */
export const SHARED_PLATFORM_IS_THE_OPERATORS =
  "Under shared platform limits the platform limit is one for every tenant, the operator's (serve --limit platform.daily=..., or createSandbox({ limits: { platform } })): send it unchanged or leave it out; a tenant sets its partner and user levels";

/** Who changes: the operator (options, flags: no rule applies), or a tenant under the sandbox's scope. */
export type ChangeBy = { operator: true } | { operator: false; scope: SettingsScope };

/**
 * The operator's rules on a tenant's change, which the schemas cannot say: `platform_scope` and,
 * under shared platform limits, the `platform` level are the operator's. Sent unchanged (a GET
 * body posted back) they are accepted and dropped; a different value is refused. Returns the
 * issues (wire names) and the body without those fields.
 */
export function tenantRules(kind: SettingsKind, wire: Record<string, unknown>, scope: SettingsScope): { issues: Issue[]; rest: Record<string, unknown> } {
  if (kind !== 'limits') return { issues: [], rest: wire };
  const issues: Issue[] = [];
  const rest = { ...wire };
  if ('platform_scope' in rest) {
    if (rest['platform_scope'] !== scope.platformScope) issues.push({ path: 'platform_scope', message: PLATFORM_SCOPE_IS_THE_OPERATORS });
    delete rest['platform_scope'];
  }
  const platform = rest['platform'];
  if (scope.platformScope === 'shared' && platform !== undefined) {
    const inForce = scope.defaults.limits.platform as unknown as Record<string, unknown>;
    const given = typeof platform === 'object' && platform !== null ? Object.entries(platform).filter(([, v]) => v !== undefined) : [['', platform]];
    if (given.some(([period, value]) => inForce[period as string] !== value)) issues.push({ path: 'platform', message: SHARED_PLATFORM_IS_THE_OPERATORS });
    delete rest['platform'];
  }
  return { issues, rest };
}

/** A wire body's fields as a patch (in-process names), timings kept to the millisecond. */
function patchOf(kind: SettingsKind, wire: Record<string, unknown>): OwnSettings[SettingsKind] {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(wire)) {
    const option = OPTION_NAMES[kind][name];
    if (value === undefined || option === undefined) continue;
    if (kind === 'timings') out[option] = Math.round((value as number) * 1000) / 1000;
    else if (kind === 'limits') out[option] = Object.fromEntries(Object.entries(value as object).filter(([, v]) => v !== undefined));
    else out[option] = value;
  }
  return out as OwnSettings[SettingsKind];
}

/** The outcome of {@link parseSettings}. */
export type SettingsParse<K extends SettingsKind> = { ok: true; patch: NonNullable<OwnSettings[K]> } | { ok: false; issues: Issue[] };

/**
 * Validates a change given in wire names (a route's body, the serve flags): the schema of the
 * route, then, for a tenant's change, the operator's rules. Issues name wire fields.
 */
export function parseSettings<K extends SettingsKind>(kind: K, wire: unknown, by: ChangeBy): SettingsParse<K> {
  const parsed = parseRequest(SCHEMAS[kind] as unknown as Parameters<typeof parseRequest>[0], wire);
  if (!parsed.ok) return { ok: false, issues: parsed.issues };
  let body = parsed.value as Record<string, unknown>;
  if (!by.operator) {
    const ruled = tenantRules(kind, body, by.scope);
    if (ruled.issues.length > 0) return { ok: false, issues: ruled.issues };
    body = ruled.rest;
  }
  return { ok: true, patch: patchOf(kind, body) as NonNullable<OwnSettings[K]> };
}

/**
 * Validates a change given in-process (`createSandbox` options, `setPrice`, `setLimits`,
 * `setTimings`): the same rules as the routes, field names as the caller wrote them. Throws a
 * `RangeError` (`setPrice: midRate: Expected ...`) on any mistake.
 */
export function settingsFromOptions<K extends SettingsKind>(kind: K, input: unknown, where: string, by: ChangeBy): NonNullable<OwnSettings[K]> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new RangeError(`${where}: expected an object of settings.`);
  const wire: Record<string, unknown> = {};
  const issues: Issue[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const wireName = WIRE_NAMES[kind][name] ?? (kind === 'limits' && name === 'platformScope' ? 'platform_scope' : undefined);
    if (wireName === undefined) issues.push({ path: name, message: `Unknown field ${JSON.stringify(name)}: remove it` });
    else wire[wireName] = value;
  }
  if (issues.length === 0) {
    const parsed = parseSettings(kind, wire, by);
    if (parsed.ok) return parsed.patch;
    for (const issue of parsed.issues) {
      const [head = '', ...rest] = issue.path.split('.');
      const name = head === 'platform_scope' ? 'platformScope' : (OPTION_NAMES[kind][head] ?? head);
      issues.push({ path: [name, ...rest].join('.'), message: issue.message.replace(PLATFORM_SCOPE_IS_THE_OPERATORS, 'The platform scope is set once, in createSandbox({ limits: { platformScope } }) (serve --shared-platform-limits)') });
    }
  }
  throw new RangeError(`${where}: ${summarizeIssues(issues)}.`);
}

/** Builds the sandbox's defaults (what every tenant starts from) from already validated parts. */
export function defaultSettings(parts: OwnSettings, platformScope: PlatformScope): TenantSettings {
  return freeze({
    price: { ...DEFAULT_PRICING, ...parts.price },
    limits: {
      platform: { ...DEFAULT_LIMITS.platform, ...parts.limits?.platform },
      partner: { ...DEFAULT_LIMITS.partner, ...parts.limits?.partner },
      user: { ...DEFAULT_LIMITS.user, ...parts.limits?.user },
      platformScope,
    },
    timings: { ...DEFAULT_TIMINGS, ...parts.timings },
  });
}

function freeze(settings: TenantSettings): TenantSettings {
  for (const part of Object.values(settings)) {
    for (const value of Object.values(part)) if (typeof value === 'object' && value !== null) Object.freeze(value);
    Object.freeze(part);
  }
  return Object.freeze(settings);
}

/** What is in force for a tenant: the defaults overlaid with what it set (the defaults themselves when it set nothing). */
export function resolveSettings(scope: SettingsScope, own: OwnSettings | null): TenantSettings {
  const d = scope.defaults;
  if (own === null) return d;
  const shared = scope.platformScope === 'shared';
  const limits = own.limits;
  return freeze({
    price: own.price === undefined ? d.price : { ...d.price, ...own.price },
    limits:
      limits === undefined
        ? d.limits
        : {
            platform: shared ? d.limits.platform : { ...d.limits.platform, ...limits.platform },
            partner: { ...d.limits.partner, ...limits.partner },
            user: { ...d.limits.user, ...limits.user },
            platformScope: scope.platformScope,
          },
    timings: own.timings === undefined ? d.timings : { ...d.timings, ...own.timings },
  });
}

/** What a tenant set, with a validated change of one kind added (a new object; plain JSON). */
export function withChange<K extends SettingsKind>(own: OwnSettings | null, kind: K, patch: NonNullable<OwnSettings[K]>): OwnSettings {
  const next: OwnSettings = structuredClone(own ?? {});
  if (kind === 'limits') {
    const limits = (next.limits ??= {});
    for (const [level, pair] of Object.entries(patch as LimitsPatch) as Array<[keyof LimitsPatch, Partial<LimitPair>]>) limits[level] = { ...limits[level], ...pair };
  } else {
    (next as Record<string, object>)[kind] = { ...(next[kind] as object | undefined), ...(patch as object) };
  }
  return next;
}

/**
 * A tenant's own settings as a snapshot holds them, checked by the same rules (a `RangeError`
 * names the tenant and the field); `null` when it set nothing or the snapshot predates them.
 */
export function ownSettingsOf(value: unknown, tenantId: string): OwnSettings | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value)) throw new RangeError(`Snapshot of tenant ${tenantId}: settings must be an object.`);
  const own: OwnSettings = {};
  for (const [kind, part] of Object.entries(value)) {
    if (!(kind in SCHEMAS)) throw new RangeError(`Snapshot of tenant ${tenantId}: unknown settings ${JSON.stringify(kind)}.`);
    if (part === undefined) continue;
    (own as Record<string, unknown>)[kind] = settingsFromOptions(kind as SettingsKind, part, `Snapshot of tenant ${tenantId}, settings.${kind}`, { operator: true });
  }
  return Object.keys(own).length === 0 ? null : own;
}

/** The fields a tenant set itself, as dotted wire paths (`price.mid_rate`, `limits.user.daily`, `timings.quote_ttl_seconds`). */
export function changedFields(own: OwnSettings | null): string[] {
  if (own === null) return [];
  const out: string[] = [];
  for (const kind of ['price', 'limits', 'timings'] as const) {
    for (const [name, value] of Object.entries(own[kind] ?? {})) {
      const wire = WIRE_NAMES[kind][name] ?? name;
      if (kind === 'limits') for (const period of Object.keys(value as object)) out.push(`${kind}.${wire}.${period}`);
      else out.push(`${kind}.${wire}`);
    }
  }
  return out;
}

/** A duration setting in milliseconds. */
export function ms(seconds: number): number {
  return Math.round(seconds * 1000);
}

/** The price feed as the API answers it (`GET /v1/test_helpers/price`). */
export function priceOut(price: Readonly<PricingSettings>): { mid_rate: string; spread_bps: number; withdrawal_fee_usdt: string; available: boolean } {
  return { mid_rate: price.midRate, spread_bps: price.spreadBps, withdrawal_fee_usdt: price.withdrawalFeeUsdt, available: price.available };
}

/** The limits as the API answers them (`GET /v1/test_helpers/limits`). */
export function limitsOut(limits: TenantSettings['limits']): { platform: LimitPair; platform_scope: PlatformScope; partner: LimitPair; user: LimitPair } {
  return { platform: { ...limits.platform }, platform_scope: limits.platformScope, partner: { ...limits.partner }, user: { ...limits.user } };
}

/** The timings as the API answers them (`GET /v1/test_helpers/settings`). */
export function timingsOut(timings: Readonly<TimingSettings>): { quote_ttl_seconds: number; deposit_window_seconds: number; settlement_delay_seconds: number } {
  return { quote_ttl_seconds: timings.quoteTtlSeconds, deposit_window_seconds: timings.depositWindowSeconds, settlement_delay_seconds: timings.settlementDelaySeconds };
}

/** A validation error over HTTP from issues in wire names. */
export function settingsError(issues: Issue[]): ApiError {
  return new ApiError('validation_error', 'The request is invalid.', { issues });
}
