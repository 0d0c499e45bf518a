/**
 * The `serve` flags that set the sandbox's price feed, limits and timings at start
 * (`--price`, `--spread-bps`, `--withdrawal-fee`, `--quote-ttl`, `--deposit-window`,
 * `--settlement-delay`, `--quote-rate-limit`, `--limit LEVEL.PERIOD=BRL`): what `createSandbox` options and the
 * `/v1/test_helpers/price|limits|settings` routes set, validated like the routes' bodies.
 * @module
 */
import type { SandboxOptions } from '../sandbox/index.js';

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

const DECIMAL = /^(0|[1-9]\d{0,17})(\.\d{1,18})?$/;
const LEVELS = ['platform', 'partner', 'user'] as const;
const PERIODS = ['daily', 'monthly'] as const;

function decimal(flag: string, raw: string, positive: boolean): string {
  if (!DECIMAL.test(raw) || (positive && Number(raw) <= 0)) {
    throw new RangeError(`${flag} must be a ${positive ? 'positive' : 'non-negative'} decimal such as 5.40, got ${JSON.stringify(raw)}.`);
  }
  return raw;
}

function seconds(flag: string, raw: string): number {
  if (!/^\d{1,8}$/.test(raw) || Number(raw) < 1 || Number(raw) > 31_536_000) {
    throw new RangeError(`${flag} must be a whole number of seconds from 1 to 31536000, got ${JSON.stringify(raw)}.`);
  }
  return Number(raw);
}

/** Parses the flags; throws a `RangeError` naming the flag on any mistake (the CLI shows it as a usage error). Absent flags leave the defaults. */
export function parseSettingFlags(raw: RawSettingFlags): SandboxSettingFlags {
  const out: SandboxSettingFlags = {};
  const pricing: NonNullable<SandboxOptions['pricing']> = {};
  if (raw.price !== undefined) pricing.midRate = decimal('--price', raw.price, true);
  if (raw.withdrawalFee !== undefined) pricing.withdrawalFeeUsdt = decimal('--withdrawal-fee', raw.withdrawalFee, false);
  if (raw.spreadBps !== undefined) {
    if (!/^\d{1,4}$/.test(raw.spreadBps)) throw new RangeError(`--spread-bps must be an integer from 0 to 9999, got ${JSON.stringify(raw.spreadBps)}.`);
    pricing.spreadBps = Number(raw.spreadBps);
  }
  if (Object.keys(pricing).length > 0) out.pricing = pricing;
  if (raw.quoteTtl !== undefined) out.quoteTtlSeconds = seconds('--quote-ttl', raw.quoteTtl);
  if (raw.depositWindow !== undefined) out.depositWindowSeconds = seconds('--deposit-window', raw.depositWindow);
  if (raw.settlementDelay !== undefined) out.settlementDelaySeconds = seconds('--settlement-delay', raw.settlementDelay);
  if (raw.quoteRateLimit !== undefined) {
    if (!/^\d{1,7}$/.test(raw.quoteRateLimit)) throw new RangeError(`--quote-rate-limit must be a whole number of quotes a minute (0: no limit), got ${JSON.stringify(raw.quoteRateLimit)}.`);
    out.quoteRateLimit = Number(raw.quoteRateLimit);
  }
  const limits: Record<string, Record<string, string>> = {};
  for (const entry of raw.limit ?? []) {
    const match = /^([a-z]+)\.([a-z]+)=(.*)$/.exec(entry);
    const level = match?.[1] as (typeof LEVELS)[number] | undefined;
    const period = match?.[2] as (typeof PERIODS)[number] | undefined;
    if (match === null || !LEVELS.includes(level as never) || !PERIODS.includes(period as never)) {
      throw new RangeError(`--limit takes LEVEL.PERIOD=BRL with LEVEL platform, partner or user and PERIOD daily or monthly (e.g. user.daily=1000.00), got ${JSON.stringify(entry)}.`);
    }
    (limits[level as string] ??= {})[period as string] = decimal(`--limit ${level as string}.${period as string}`, match[3] as string, false);
  }
  if (Object.keys(limits).length > 0) out.limits = limits as NonNullable<SandboxSettingFlags['limits']>;
  return out;
}

/** The help lines of the flags (the CLI's `serve --help`). */
export const SETTING_FLAGS = [
  ['--price <BRL>', 'mid rate of the price feed, BRL per USDT (default 5.40); POST /v1/test_helpers/price moves it later'],
  ['--spread-bps <N>', 'spread in basis points, 0 to 9999 (default 50)'],
  ['--withdrawal-fee <USDT>', 'withdrawal fee deducted from an onramp (default 1.00)'],
  ['--quote-ttl <SECONDS>', 'how long a quote stays acceptable (default 300; the reference allows 30)'],
  ['--deposit-window <SECONDS>', 'how long a conversion or transaction waits for its deposit (default 900)'],
  ['--settlement-delay <SECONDS>', 'how long a funded conversion takes to settle (default 60)'],
  ['--quote-rate-limit <N>', 'POST /v1/quotes a minute per API key (default 60, as the reference; 0: no limit, for load tests)'],
  ['--limit <LEVEL.PERIOD=BRL>', 'a volume limit, e.g. user.daily=1000.00 (repeatable; LEVEL platform, partner or user; PERIOD daily or monthly)'],
] as const;
