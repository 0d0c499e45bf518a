/**
 * `trigger`: each scenario creates real resources through the public API and its test helpers
 * (the same calls a partner makes), so that the server emits the named event to its webhook
 * endpoints. Every resource is printed as it is created.
 * @module
 */
import { randomInt, randomUUID } from 'node:crypto';
import Big from 'big.js';
import type { Conversion, PixUsdt, SimulatePaymentBody } from '../../index.js';
import { SANDBOX_PIX_EMAIL } from '../../sandbox/index.js';
import { SCENARIOS, type ScenarioName, type TriggerOptions } from '../commands/trigger.js';
import { EXIT, type Io, clientOf, fail, print } from './io.js';

type RunOptions = Extract<TriggerOptions, { list: false }>;

/** One created or changed resource. */
interface Created {
  object: 'user' | 'quote' | 'conversion' | 'clock';
  id: string;
  detail: string;
}

interface Context {
  client: PixUsdt;
  options: RunOptions;
  note(created: Created): void;
}

const WALLET = '0x52908400098527886E0F7030069857D2E4169EE7';
const WRONG_ADDRESS = '0x000000000000000000000000000000000000dEaD';
const STANDBY_DAYS = 7;

/** A random CPF with valid check digits: each run gets a user of its own. */
function randomCpf(): string {
  const d = Array.from({ length: 9 }, () => randomInt(10));
  for (const len of [9, 10]) {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += (d[i] as number) * (len + 1 - i);
    d.push(((sum * 10) % 11) % 10);
  }
  return d.join('');
}

async function newUser(ctx: Context): Promise<string> {
  const user = await ctx.client.users.create({
    external_id: `trigger-${randomUUID().slice(0, 8)}`,
    name: 'Trigger Test User',
    document_type: 'cpf',
    document_number: randomCpf(),
  });
  ctx.note({ object: 'user', id: user.id, detail: `created, KYC ${user.kyc_status}` });
  return user.id;
}

async function forceKyc(ctx: Context, userId: string, status: 'approved' | 'rejected'): Promise<void> {
  await ctx.client.testHelpers.users.kyc(userId, status === 'rejected' ? { status, rejection_reason: 'Triggered by pix-usdt-sandbox' } : { status });
  ctx.note({ object: 'user', id: userId, detail: `KYC ${status}` });
}

/** The partner's `--user` (approved first if it is not), or a new approved user. */
async function approvedUser(ctx: Context): Promise<string> {
  const given = ctx.options.user;
  if (given === undefined) {
    const id = await newUser(ctx);
    await forceKyc(ctx, id, 'approved');
    return id;
  }
  const user = await ctx.client.users.retrieve(given);
  if (user.kyc_status !== 'approved') await forceKyc(ctx, user.id, 'approved');
  return user.id;
}

/** An accepted quote in the chosen direction: `awaiting_deposit`. */
async function openConversion(ctx: Context): Promise<Conversion> {
  const userId = await approvedUser(ctx);
  const { amount, direction } = ctx.options;
  const quote =
    direction === 'onramp'
      ? await ctx.client.quotes.create({
          user_id: userId,
          source_currency: 'BRL',
          target_currency: 'USDT',
          source_amount: amount ?? '100.00',
          destination_wallet_address: WALLET,
          destination_wallet_network: 'polygon',
        })
      : await ctx.client.quotes.create({
          user_id: userId,
          source_currency: 'USDT',
          target_currency: 'BRL',
          source_amount: amount ?? '20.00',
          pix_key: SANDBOX_PIX_EMAIL,
          pix_key_type: 'email',
          deposit_network: 'polygon',
        });
  ctx.note({ object: 'quote', id: quote.id, detail: `${quote.source_amount} ${quote.source_currency} -> ${quote.target_amount} ${quote.target_currency}` });
  const conversion = await ctx.client.quotes.accept(quote.id);
  noteConversion(ctx, conversion);
  return conversion;
}

function noteConversion(ctx: Context, c: Conversion): void {
  const why = c.standby_reason ?? c.failure_reason;
  ctx.note({ object: 'conversion', id: c.id, detail: `${c.transaction_type} ${c.status}${why === null ? '' : ` (${why})`}` });
}

/** The Pix payment (onramp) or the USDT deposit (offramp) arrives. */
async function pay(ctx: Context, c: Conversion, body: SimulatePaymentBody & { confirmed?: boolean; deposit_address?: string }): Promise<Conversion> {
  const helpers = ctx.client.testHelpers.conversions;
  const next = c.transaction_type === 'pix_onramp' ? await helpers.simulateOnrampPixPaid(c.id, body) : await helpers.simulateOfframpDeposit(c.id, body);
  noteConversion(ctx, next);
  return next;
}

async function advance(ctx: Context, seconds: number, why: string): Promise<void> {
  const { now } = await ctx.client.testHelpers.clock.advance({ seconds });
  ctx.note({ object: 'clock', id: now, detail: `advanced ${seconds} s (${why})` });
}

async function standby(ctx: Context, reason: string): Promise<Conversion> {
  const c = await openConversion(ctx);
  const expected = new Big(c.expected_source_amount);
  switch (reason) {
    case 'under_funded':
      return pay(ctx, c, { amount: expected.div(2).round(c.transaction_type === 'pix_onramp' ? 2 : 6, Big.roundDown).toFixed() });
    case 'over_funded':
      return pay(ctx, c, { amount: expected.plus(1).toFixed() });
    case 'window_expired': {
      await pay(ctx, c, { confirmed: false });
      const clock = await ctx.client.testHelpers.clock.retrieve();
      const seconds = Math.ceil((Date.parse(c.deposit_window_expires_at as string) - Date.parse(clock.now)) / 1000) + 1;
      await advance(ctx, Math.max(1, seconds), 'past the deposit window');
      return ctx.client.conversions.retrieve(c.id);
    }
    case 'duplicate_deposit':
      await pay(ctx, c, { confirmed: false });
      return pay(ctx, c, {});
    case 'wrong_address':
      return pay(ctx, c, { deposit_address: WRONG_ADDRESS });
    case 'late_post_window':
      // Confirmed after the window closed, before the expiry was applied (the helper's `late`).
      return pay(ctx, c, { late: true });
    default:
      throw new Error(`No way to cause standby ${reason}.`);
  }
}

/** Each scenario, and what its conversion (if any) must end as. */
const RUN: Record<ScenarioName, (ctx: Context) => Promise<Conversion | null>> = {
  'user.kyc_pending': async (ctx) => {
    await newUser(ctx);
    return null;
  },
  'user.kyc_approved': async (ctx) => {
    await forceKyc(ctx, ctx.options.user ?? (await newUser(ctx)), 'approved');
    return null;
  },
  'user.kyc_rejected': async (ctx) => {
    await forceKyc(ctx, ctx.options.user ?? (await newUser(ctx)), 'rejected');
    return null;
  },
  'conversion.created': (ctx) => openConversion(ctx),
  'conversion.completed': async (ctx) => pay(ctx, await openConversion(ctx), { settle: true }),
  'conversion.standby': (ctx) => standby(ctx, ctx.options.reason as string),
  'conversion.failed': async (ctx) => {
    const c = await openConversion(ctx);
    const failed = await ctx.client.testHelpers.conversions.fail(c.id, { reason: ctx.options.reason as never });
    noteConversion(ctx, failed);
    return failed;
  },
  'conversion.expired': async (ctx) => {
    const expired = await ctx.client.testHelpers.conversions.expire((await openConversion(ctx)).id);
    noteConversion(ctx, expired);
    return expired;
  },
  'conversion.canceled': async (ctx) => {
    const canceled = await ctx.client.conversions.cancel((await openConversion(ctx)).id);
    noteConversion(ctx, canceled);
    return canceled;
  },
  'conversion.abandoned': async (ctx) => {
    const c = await standby(ctx, 'under_funded');
    await advance(ctx, STANDBY_DAYS * 86_400 + 1, 'past the 7 days of standby');
    const abandoned = await ctx.client.conversions.retrieve(c.id);
    noteConversion(ctx, abandoned);
    return abandoned;
  },
  'transaction.sending_pix': async (ctx) => pay(ctx, await openConversion(ctx), {}),
};

/** The conversion status each scenario ends in. */
const EXPECTED: Partial<Record<ScenarioName, string>> = {
  'conversion.created': 'awaiting_deposit',
  'conversion.completed': 'completed',
  'conversion.standby': 'standby',
  'conversion.failed': 'failed',
  'conversion.expired': 'expired',
  'conversion.canceled': 'canceled',
  'conversion.abandoned': 'abandoned',
  'transaction.sending_pix': 'funded',
};

/** Runs `trigger`. */
export async function runTrigger(options: TriggerOptions, io: Io): Promise<number> {
  if (options.list) {
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      print(io, options, { scenario: name, summary: scenario.summary, directions: scenario.directions, reasons: 'reasons' in scenario ? scenario.reasons : [] }, `${name.padEnd(26)}${scenario.summary}`);
    }
    return EXIT.ok;
  }
  const created: Created[] = [];
  const ctx: Context = {
    client: clientOf(options),
    options,
    note(entry) {
      created.push(entry);
      if (!options.json) io.stdout(`${entry.object.padEnd(11)}${entry.id}  ${entry.detail}`);
    },
  };
  let conversion: Conversion | null;
  try {
    conversion = await RUN[options.scenario](ctx);
  } catch (error) {
    if (options.json) print(io, options, { scenario: options.scenario, ok: false, created }, '');
    return fail(io, options, error, `trigger ${options.scenario}`);
  }
  const expected = EXPECTED[options.scenario];
  const ok = expected === undefined || conversion?.status === expected;
  print(
    io,
    options,
    { scenario: options.scenario, ok, created, conversion: conversion === null ? null : { id: conversion.id, status: conversion.status, standby_reason: conversion.standby_reason, failure_reason: conversion.failure_reason } },
    ok ? `${options.scenario}: done` : `${options.scenario}: the conversion ended ${conversion?.status ?? 'nowhere'}, not ${expected}`,
  );
  if (!ok) io.stderr(`pix-usdt-sandbox: trigger ${options.scenario} did not reach ${expected}; the server may be configured differently (limits, price feed, faults).`);
  return ok ? EXIT.ok : EXIT.failure;
}
