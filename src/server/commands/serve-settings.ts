/**
 * The `serve` flags that set the sandbox's default price feed, limits and timings, which every
 * tenant starts from (`--price`, `--spread-bps`, `--withdrawal-fee`, `--quote-ttl`,
 * `--deposit-window`, `--settlement-delay`, `--limit LEVEL.PERIOD=BRL`), and `--quote-rate-limit`:
 * what the `createSandbox` options set, validated by the one module the `/v1/test_helpers/price|limits|settings` routes
 * use (src/sandbox/core/settings.ts), each mistake named by its flag.
 * @module
 */
import { parseSettings } from '../../sandbox/sandbox.js';
import type { SandboxOptions } from '../../sandbox/index.js';

/** What the flags set, as `createSandbox` options. */
export type SandboxSettingFlags = Pick<SandboxOptions, 'pricing' | 'limits' | 'quoteTtlSeconds' | 'depositWindowSeconds' | 'settlementDelaySeconds' | 'quoteRateLimit'>;

/** The raw values of the flags (commander's camel-cased names). */
export interface RawSettingFlags {
  price?: string | undefined;
  spreadBps?: string | undefined;
  withdrawalFee?: string | undefined;
  quoteTtl?: string | undefined;
  depositWindow?: string | undefined;
  settlementDelay?: string | undefined;
  quoteRateLimit?: string | undefined;
  limit?: string[] | undefined;
}

const LEVELS = ['platform', 'partner', 'user'] as const;
const PERIODS = ['daily', 'monthly'] as const;

// A flag's text as the route's JSON value: numbers where the route takes a number, written as
// plain decimals (`1e3` stays a string, which the route refuses as it would `"1e3"`).
function numberOf(raw: string): number | string {
  return /^\d{1,9}(\.\d{1,9})?$/.test(raw) ? Number(raw) : raw;
}

type Check = { kind: 'price' | 'limits' | 'timings'; body: Record<string, unknown>; flags: Map<string, string> };

function check({ kind, body, flags }: Check): Record<string, unknown> | undefined {
  if (Object.keys(body).length === 0) return undefined;
  const parsed = parseSettings(kind, body, { operator: true });
  if (parsed.ok) return parsed.patch as Record<string, unknown>;
  const issue = parsed.issues[0] as { path: string; message: string };
  const flag = flags.get(issue.path) ?? flags.get(issue.path.split('.')[0] as string) ?? kind;
  const given = issue.path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], body);
  throw new RangeError(`${flag}: ${issue.message.replace(/, received .*$/, '')}, got ${JSON.stringify(given)}.`);
}

/** Parses the flags; throws a `RangeError` naming the flag on any mistake (the CLI shows it as a usage error). Absent flags leave the defaults. */
export function parseSettingFlags(raw: RawSettingFlags): SandboxSettingFlags {
  const out: SandboxSettingFlags = {};
  const price: Check = { kind: 'price', body: {}, flags: new Map() };
  const add = (c: Check, wire: string, flag: string, value: unknown): void => {
    c.body[wire] = value;
    c.flags.set(wire, flag);
  };
  if (raw.price !== undefined) add(price, 'mid_rate', '--price', raw.price);
  if (raw.spreadBps !== undefined) add(price, 'spread_bps', '--spread-bps', numberOf(raw.spreadBps));
  if (raw.withdrawalFee !== undefined) add(price, 'withdrawal_fee_usdt', '--withdrawal-fee', raw.withdrawalFee);
  const pricing = check(price);
  if (pricing !== undefined) out.pricing = pricing;
  const timings: Check = { kind: 'timings', body: {}, flags: new Map() };
  if (raw.quoteTtl !== undefined) add(timings, 'quote_ttl_seconds', '--quote-ttl', numberOf(raw.quoteTtl));
  if (raw.depositWindow !== undefined) add(timings, 'deposit_window_seconds', '--deposit-window', numberOf(raw.depositWindow));
  if (raw.settlementDelay !== undefined) add(timings, 'settlement_delay_seconds', '--settlement-delay', numberOf(raw.settlementDelay));
  const times = check(timings) as { quoteTtlSeconds?: number; depositWindowSeconds?: number; settlementDelaySeconds?: number } | undefined;
  if (times?.quoteTtlSeconds !== undefined) out.quoteTtlSeconds = times.quoteTtlSeconds;
  if (times?.depositWindowSeconds !== undefined) out.depositWindowSeconds = times.depositWindowSeconds;
  if (times?.settlementDelaySeconds !== undefined) out.settlementDelaySeconds = times.settlementDelaySeconds;
  const limits: Check = { kind: 'limits', body: {}, flags: new Map() };
  if (raw.quoteRateLimit !== undefined) {
    if (!/^\d{1,7}$/.test(raw.quoteRateLimit)) throw new RangeError(`--quote-rate-limit must be a whole number of quotes a minute (0: no limit), got ${JSON.stringify(raw.quoteRateLimit)}.`);
    out.quoteRateLimit = Number(raw.quoteRateLimit);
  }
  for (const entry of raw.limit ?? []) {
    const match = /^([a-z]+)\.([a-z]+)=(.*)$/.exec(entry);
    const level = match?.[1] as (typeof LEVELS)[number] | undefined;
    const period = match?.[2] as (typeof PERIODS)[number] | undefined;
    if (match === null || !LEVELS.includes(level as never) || !PERIODS.includes(period as never)) {
      throw new RangeError(`--limit takes LEVEL.PERIOD=BRL with LEVEL platform, partner or user and PERIOD daily or monthly (e.g. user.daily=1000.00), got ${JSON.stringify(entry)}.`);
    }
    ((limits.body[level as string] ??= {}) as Record<string, unknown>)[period as string] = match[3];
    limits.flags.set(`${level as string}.${period as string}`, `--limit ${level as string}.${period as string}`);
  }
  const limitPatch = check(limits);
  if (limitPatch !== undefined) out.limits = limitPatch as NonNullable<SandboxSettingFlags['limits']>;
  return out;
}

/** The help lines of the flags (the CLI's `serve --help`). */
export const SETTING_FLAGS = [
  ['--price <BRL>', "mid rate of the price feed, BRL per USDT, from 0.01, at most 6 decimals (default 5.40); every tenant starts from it and moves its own with POST /v1/test_helpers/price"],
  ['--spread-bps <N>', 'spread in basis points, 0 to 9999 (default 50)'],
  ['--withdrawal-fee <USDT>', 'withdrawal fee deducted from an onramp, at most 6 decimals (default 1.00)'],
  ['--quote-ttl <SECONDS>', 'how long a quote stays acceptable, 0.001 to 31536000 (default 300; the reference allows 30)'],
  ['--deposit-window <SECONDS>', 'how long a conversion or transaction waits for its deposit (default 900)'],
  ['--settlement-delay <SECONDS>', 'how long a funded conversion takes to settle (default 60)'],
  ['--quote-rate-limit <N>', 'POST /v1/quotes a minute per API key (default 60, as the reference; 0: no limit, for load tests)'],
  ['--limit <LEVEL.PERIOD=BRL>', 'a volume limit, at most 2 decimals, e.g. user.daily=1000.00 (repeatable; LEVEL platform, partner or user; PERIOD daily or monthly)'],
] as const;
