/**
 * The operations a property run draws, as plain data (so that fast-check can shrink a failing
 * sequence), and how each is carried out through the public client. Targets are indexes into
 * what the run has created so far, taken modulo its size, so every drawn sequence is runnable.
 */
import fc from 'fast-check';
import type { World } from './world.js';
import { attempt } from './world.js';
import { WALLET, cpf } from '../support/fixtures.js';
export { cpf };

const KYC = ['approved', 'approved', 'rejected', 'in_review', 'expired'] as const;
const FAIL = ['pix_expired', 'pix_rejected', 'crypto_deposit_expired'] as const;

export type Cmd =
  | { kind: 'user'; approve: boolean }
  | { kind: 'kyc'; user: number; status: (typeof KYC)[number] }
  | { kind: 'quote'; user: number; direction: 'onramp' | 'offramp'; side: 'source' | 'target'; amount: number; accept: boolean }
  | { kind: 'accept'; quote: number }
  | { kind: 'cancel'; conv: number }
  | { kind: 'fund'; conv: number; amount: 'exact' | 'under' | 'over' | 'odd' | 'default'; settle: boolean }
  | { kind: 'liquidate'; conv: number }
  | { kind: 'expire'; conv: number }
  | { kind: 'fail'; conv: number; reason: (typeof FAIL)[number] }
  | { kind: 'price'; midRate: string; available: boolean }
  | { kind: 'advance'; seconds: number };

const index = fc.nat({ max: 50 });

/** Quote amounts: ordinary ones and odd ones (the smallest units, many digits, near the limits). */
const AMOUNTS = {
  onramp: { source: ['540.00', '100.00', '0.01', '1234.56', '49999.99', '7.77'], target: ['100.000000', '0.000001', '33.333333', '9000.000000'] },
  offramp: { source: ['100.000000', '0.000001', '33.333333', '5000.000000'], target: ['540.00', '0.01', '1234.56', '49999.99'] },
} as const;

export function amountOf(cmd: Extract<Cmd, { kind: 'quote' }>): string {
  const list = AMOUNTS[cmd.direction][cmd.side];
  return list[cmd.amount % list.length] as string;
}

export const command: fc.Arbitrary<Cmd> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('user' as const), approve: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('kyc' as const), user: index, status: fc.constantFrom(...KYC) }), weight: 2 },
  {
    arbitrary: fc.record({
      kind: fc.constant('quote' as const),
      user: index,
      direction: fc.constantFrom('onramp' as const, 'offramp' as const),
      side: fc.constantFrom('source' as const, 'target' as const),
      amount: fc.nat({ max: 20 }),
      accept: fc.oneof(fc.constant(true), fc.boolean()),
    }),
    weight: 6,
  },
  { arbitrary: fc.record({ kind: fc.constant('accept' as const), quote: index }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('cancel' as const), conv: index }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant('fund' as const),
      conv: index,
      amount: fc.constantFrom('exact' as const, 'under' as const, 'over' as const, 'odd' as const, 'default' as const),
      settle: fc.boolean(),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ kind: fc.constant('liquidate' as const), conv: index }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('expire' as const), conv: index }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('fail' as const), conv: index, reason: fc.constantFrom(...FAIL) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('price' as const), midRate: fc.constantFrom('5.40', '5.10', '5.90', '4.75'), available: fc.boolean() }),
    weight: 1,
  },
  { arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.constantFrom(1, 30, 61, 299, 301, 901, 3600, 86_400, 7 * 86_400 + 1) }), weight: 3 },
);

/** Ids the run has created, in creation order. */
export interface Created {
  users: string[];
  quotes: string[];
  conversions: Array<{ id: string; direction: 'onramp' | 'offramp'; expected: string }>;
}

function pick<T>(list: readonly T[], i: number): T | undefined {
  return list.length === 0 ? undefined : list[i % list.length];
}

/** Scales a decimal string (kept as a string: money is never a float). */
function shifted(expected: string, how: 'under' | 'over' | 'odd'): string {
  const [whole = '0', frac = ''] = expected.split('.');
  const unit = `0.${'0'.repeat(Math.max(0, frac.length - 1))}1`;
  if (how === 'odd') return frac.length === 6 ? '0.000001' : '0.01';
  if (how === 'over') return `${BigInt(whole) + 1n}.${frac}`;
  // under: one smallest unit less (or the unit itself when the expected amount is that unit).
  const units = BigInt(whole + frac) - 1n;
  if (units <= 0n) return unit;
  const digits = units.toString().padStart(frac.length + 1, '0');
  return `${digits.slice(0, digits.length - frac.length)}.${digits.slice(digits.length - frac.length)}`;
}

let counter = 0;

async function newUser(world: World, created: Created, approve: boolean): Promise<string | undefined> {
  const n = ++counter;
  const r = await attempt(() => world.client.users.create({ external_id: `prop-${n}`, name: `User ${n}`, document_type: 'cpf', document_number: cpf(n) }));
  if (!r.ok) return undefined;
  created.users.push(r.value.id);
  if (approve) await attempt(() => world.client.testHelpers.users.kyc(r.value.id, { status: 'approved' }));
  return r.value.id;
}

async function accept(world: World, created: Created, quote: string): Promise<void> {
  const r = await attempt(() => world.client.quotes.accept(quote));
  if (!r.ok) return;
  const c = r.value;
  created.conversions.push({ id: c.id, direction: c.transaction_type === 'pix_onramp' ? 'onramp' : 'offramp', expected: c.expected_source_amount });
}

/** Carries out one command; refusals are fine (they must be 4xx API errors). */
export async function execute(world: World, created: Created, cmd: Cmd): Promise<void> {
  const { client, sandbox } = world;
  // Conversion targets favour the latest ones (index 0 is the newest), where the action is.
  const conv = 'conv' in cmd ? pick([...created.conversions].reverse(), cmd.conv % 4 === 0 ? cmd.conv : 0) : undefined;
  switch (cmd.kind) {
    case 'user':
      await newUser(world, created, cmd.approve);
      return;
    case 'kyc': {
      const user = pick(created.users, cmd.user);
      if (user !== undefined) await attempt(() => client.testHelpers.users.kyc(user, { status: cmd.status }));
      return;
    }
    case 'quote': {
      // The first quote of a run brings its own (approved) user.
      const user = pick(created.users, cmd.user) ?? (await newUser(world, created, true));
      if (user === undefined) return;
      const amount = amountOf(cmd);
      const sides = cmd.side === 'source' ? { source_amount: amount } : { target_amount: amount };
      const r = await attempt(() =>
        cmd.direction === 'onramp'
          ? client.quotes.create({ user_id: user, source_currency: 'BRL', target_currency: 'USDT', ...sides, destination_wallet_address: WALLET, destination_wallet_network: 'polygon' })
          : client.quotes.create({ user_id: user, source_currency: 'USDT', target_currency: 'BRL', ...sides, pix_key: '52998224725', pix_key_type: 'cpf', deposit_network: 'polygon' }),
      );
      if (r.ok) created.quotes.push(r.value.id);
      if (r.ok && cmd.accept) await accept(world, created, r.value.id);
      return;
    }
    case 'accept': {
      const quote = pick(created.quotes, cmd.quote);
      if (quote !== undefined) await accept(world, created, quote);
      return;
    }
    case 'cancel':
      if (conv) await attempt(() => client.conversions.cancel(conv.id));
      return;
    case 'fund': {
      if (!conv) return;
      const body: { amount?: string; settle?: boolean } = { settle: cmd.settle };
      if (cmd.amount === 'exact') body.amount = conv.expected;
      else if (cmd.amount !== 'default') body.amount = shifted(conv.expected, cmd.amount);
      const helpers = client.testHelpers.conversions;
      await attempt(() => (conv.direction === 'onramp' ? helpers.simulateOnrampPixPaid(conv.id, body) : helpers.simulateOfframpDeposit(conv.id, body)));
      return;
    }
    case 'liquidate':
      if (conv) await attempt(() => client.conversions.liquidate(conv.id));
      return;
    case 'expire':
      if (conv) await attempt(() => client.testHelpers.conversions.expire(conv.id));
      return;
    case 'fail':
      if (conv) await attempt(() => client.testHelpers.conversions.fail(conv.id, { reason: cmd.reason }));
      return;
    case 'price':
      sandbox.setPrice({ midRate: cmd.midRate, available: cmd.available || cmd.midRate !== '4.75' });
      return;
    case 'advance':
      await sandbox.clock.advance({ seconds: cmd.seconds });
      return;
  }
}

