/**
 * Scenario builders: a user with a KYC outcome, a conversion brought to any state of the
 * reference's machine in either direction. They drive a deployment through the public client and
 * its test helpers only (the calls a partner's own code makes), so the same scenario runs against
 * the in-process sandbox, the sandbox server, and the platform's own sandbox where it has the
 * helpers. `pix-usdt-sandbox trigger` runs these same functions (triggers.ts).
 * @module
 */
import Big from 'big.js';
import { isApiError, type PixUsdt } from '../index.js';
import {
  FAIL_REASONS,
  STANDBY_REASONS,
  type Conversion,
  type ConversionStatus,
  type CreateQuoteBody,
  type EventEnvelope,
  type FailureReason,
  type Quote,
  type SimulatePaymentBody,
  type StandbyReason,
  type User,
} from '../models/index.js';
import { uuidv4 } from '../internal/uuid.js';
import { generateCpf } from '../pix/testing.js';

/** A conversion's direction: `onramp` (BRL paid by Pix, USDT delivered) or `offramp` (USDT deposited, BRL paid by Pix). */
export type Direction = 'onramp' | 'offramp';

/** One object a scenario created or changed, in the order it happened (what `trigger` prints). */
export interface ScenarioStep {
  /** What kind of object: the tenant's clock when the scenario advanced it. */
  object: 'user' | 'quote' | 'conversion' | 'clock';
  /** Its id (for the clock, the new time). */
  id: string;
  /** What happened to it, e.g. `KYC approved` or `pix_offramp standby (under_funded)`. */
  detail: string;
}

/** Options every builder takes. */
export interface ScenarioOptions {
  /** Called with each step as it happens (before the builder returns): progress for a CLI or a log. */
  onStep?: (step: ScenarioStep) => void;
  /**
   * Read the events the scenario caused from `GET /v1/test_helpers/events` (default `true`).
   * A deployment without that route answers `events: null`; `false` skips the two calls.
   */
  events?: boolean;
}

/** What a builder answers besides its objects: every step, and the events it caused. */
export interface ScenarioRecord {
  /** Every object created or changed, in order. */
  steps: ScenarioStep[];
  /**
   * The events the scenario caused, oldest first: those recorded while it ran whose object is
   * one of its own (user, quote, conversion, or a transaction of its quote). `null` when the
   * deployment does not list events (or `events: false`).
   */
  events: EventEnvelope[] | null;
}

/** The KYC outcomes a user scenario can end in. */
export type KycOutcome = 'pending' | 'approved' | 'rejected' | 'in_review' | 'expired';

/** Options of {@link createUser}. */
export interface UserScenarioOptions extends ScenarioOptions {
  /** The KYC state to end in (default `approved`). `pending` is where a new user starts. */
  kyc?: KycOutcome;
  /** An existing user of the partner instead of a new one: its KYC is forced to `kyc` (the event fires again). */
  userId?: string;
  /** The new user's `external_id` (default: `scenario-` and 8 random characters). */
  externalId?: string;
  /** The new user's name (default `Scenario User`). */
  name?: string;
  /** The new user's CPF (default: a random valid one, so every run gets a user of its own). */
  documentNumber?: string;
}

/** A user scenario's answer. */
export interface UserScenario extends ScenarioRecord {
  /** The user, as retrieved at the end. */
  user: User;
}

/** Where {@link createConversion} brings the conversion, with the reason where the state has one. */
export type ConversionGoal =
  | { status: Exclude<ConversionStatus, 'standby' | 'failed'>; reason?: undefined }
  | { status: 'standby'; /** Default `under_funded`. */ reason?: StandbyReason }
  | { status: 'failed'; /** Default `pix_expired`; `pix_send_failed` fails the Pix payout of a funded conversion. */ reason?: FailureReason };

/** Options of {@link createConversion}. */
export type ConversionScenarioOptions = ConversionGoal &
  ScenarioOptions & {
    /**
     * Default `onramp`; `offramp` where the goal happens to offramps only (standby
     * `window_expired`, `duplicate_deposit`, `wrong_address`, `late_post_window`).
     */
    direction?: Direction;
    /** The quote's source amount: BRL for onramp (default `100.00`), USDT for offramp (default `20.00`). */
    amount?: string;
    /** An existing user (approved first if it is not) instead of a new approved one. */
    userId?: string;
  };

/** A conversion scenario's answer. */
export interface ConversionScenario extends ScenarioRecord {
  /** The approved user the conversion belongs to. */
  user: User;
  /** The accepted quote. */
  quote: Quote;
  /** The conversion in the state asked for. */
  conversion: Conversion;
}

/**
 * A scenario that cannot be run as asked (a goal with no path in that direction), or whose
 * conversion did not end where it should (a deployment configured otherwise: limits, the price
 * feed, injected faults). Carries the steps taken so far.
 */
export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  /** The steps taken before the scenario stopped. */
  readonly steps: ScenarioStep[];
  /** The conversion as it ended, when there is one. */
  readonly conversion: Conversion | null;

  constructor(message: string, steps: ScenarioStep[] = [], conversion: Conversion | null = null) {
    super(message);
    this.steps = steps;
    this.conversion = conversion;
  }
}

/** Standby reasons that only an offramp deposit can cause (they concern an on-chain deposit). */
export const OFFRAMP_ONLY_STANDBY_REASONS: readonly StandbyReason[] = ['window_expired', 'duplicate_deposit', 'wrong_address', 'late_post_window'];

/** Where onramp quotes deliver the USDT (no funds ever move in a sandbox). */
export const SCENARIO_WALLET_ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';
const WRONG_ADDRESS = '0x000000000000000000000000000000000000dEaD';
const STANDBY_SECONDS = 7 * 86_400;

/** The running state of one builder call: the client, the steps, the ids whose events are ours. */
class Run {
  readonly steps: ScenarioStep[] = [];
  readonly ids = new Set<string>();
  /** The newest event before the run (`null`: none yet; `undefined`: not read, or no events route). */
  #mark: string | null | undefined;
  #listed = false;

  constructor(
    readonly client: PixUsdt,
    readonly options: ScenarioOptions,
  ) {}

  /** Notes the newest event before anything happens: awaited, so that no event of ours comes first. */
  async start(): Promise<void> {
    if (this.options.events === false) return;
    try {
      const page = await this.client.testHelpers.events.list({ limit: 1 });
      this.#mark = page.data[0]?.id ?? null;
      this.#listed = true;
    } catch (error) {
      // A deployment without the route (the platform's own sandbox, an older server).
      if (!(isApiError(error) && error.status === 404)) throw error;
    }
  }

  note(step: ScenarioStep): void {
    if (step.object !== 'clock') this.ids.add(step.id);
    this.steps.push(step);
    this.options.onStep?.(step);
  }

  noteConversion(c: Conversion): Conversion {
    const why = c.standby_reason ?? c.failure_reason;
    this.note({ object: 'conversion', id: c.id, detail: `${c.transaction_type} ${c.status}${why === null ? '' : ` (${why})`}` });
    return c;
  }

  /** The events recorded since `start` whose object is one of this run's, oldest first. */
  async events(): Promise<EventEnvelope[] | null> {
    if (!this.#listed) return null;
    const mark = this.#mark;
    const newest: EventEnvelope[] = [];
    outer: for await (const event of this.client.testHelpers.events.list({ limit: 100 })) {
      if (event.id === mark) break outer;
      newest.push(event);
    }
    const ours = (event: EventEnvelope): boolean => {
      const object = event.data.object;
      return [object['id'], object['quote_id']].some((id) => typeof id === 'string' && this.ids.has(id));
    };
    return newest.reverse().filter(ours);
  }

  async record(): Promise<ScenarioRecord> {
    return { steps: this.steps, events: await this.events() };
  }
}

async function newUser(run: Run, options: UserScenarioOptions): Promise<User> {
  const user = await run.client.users.create({
    external_id: options.externalId ?? `scenario-${uuidv4().slice(0, 8)}`,
    name: options.name ?? 'Scenario User',
    document_type: 'cpf',
    document_number: options.documentNumber ?? generateCpf(),
  });
  run.note({ object: 'user', id: user.id, detail: `created, KYC ${user.kyc_status}` });
  return user;
}

async function forceKyc(run: Run, user: User, outcome: Exclude<KycOutcome, 'pending'>): Promise<User> {
  await run.client.testHelpers.users.kyc(user.id, outcome === 'rejected' ? { status: outcome, rejection_reason: 'Scenario: rejected on purpose' } : { status: outcome });
  run.note({ object: 'user', id: user.id, detail: `KYC ${outcome}` });
  return run.client.users.retrieve(user.id);
}

async function userIn(run: Run, options: UserScenarioOptions): Promise<User> {
  const kyc = options.kyc ?? 'approved';
  if (options.userId === undefined) {
    const user = await newUser(run, options);
    return kyc === 'pending' ? user : forceKyc(run, user, kyc);
  }
  if (kyc === 'pending') throw new ScenarioError('A user is pending KYC only when created: drop userId.');
  const user = await run.client.users.retrieve(options.userId);
  run.ids.add(user.id);
  // Forced again even when it is there already: its event fires (what trigger is for).
  return forceKyc(run, user, kyc);
}

/**
 * A user in a KYC state (default: approved, so that quotes can be accepted): a new one, or
 * `userId`'s. Answers the user, each step, and the events it caused (`user.kyc_pending`,
 * `user.kyc_approved`...).
 *
 * @example
 * ```ts
 * const { user } = await createUser(client);
 * const { user: rejected, events } = await createUser(client, { kyc: 'rejected' });
 * ```
 */
export async function createUser(client: PixUsdt, options: UserScenarioOptions = {}): Promise<UserScenario> {
  const run = new Run(client, options);
  await run.start();
  const user = await userIn(run, options);
  return { user, ...(await run.record()) };
}

/** A KYC-approved user: {@link createUser} with `kyc: 'approved'`. */
export function approvedUser(client: PixUsdt, options: Omit<UserScenarioOptions, 'kyc'> = {}): Promise<UserScenario> {
  return createUser(client, { ...options, kyc: 'approved' });
}

interface Opened {
  user: User;
  quote: Quote;
  conversion: Conversion;
}

/** An approved user's accepted quote: `awaiting_deposit`. */
async function open(run: Run, direction: Direction, amount: string | undefined, userId: string | undefined): Promise<Opened> {
  let user: User;
  if (userId === undefined) {
    user = await userIn(run, { kyc: 'approved' });
  } else {
    user = await run.client.users.retrieve(userId);
    run.ids.add(user.id);
    if (user.kyc_status !== 'approved') user = await forceKyc(run, user, 'approved');
  }
  const quote = await run.client.quotes.create(quoteRequest(user.id, { direction, ...(amount === undefined ? {} : { amount }) }));
  run.note({ object: 'quote', id: quote.id, detail: `${quote.source_amount} ${quote.source_currency} -> ${quote.target_amount} ${quote.target_currency}` });
  const conversion = run.noteConversion(await run.client.quotes.accept(quote.id));
  return { user, quote, conversion };
}

/**
 * The body of a quote for `userId`, written out: onramp (default) pays `amount` BRL (default
 * `100.00`) by Pix for USDT delivered to {@link SCENARIO_WALLET_ADDRESS}; offramp sells `amount`
 * USDT (default `20.00`) for BRL paid to a CPF Pix key, which resolves in a sandbox.
 *
 * @example
 * ```ts
 * const quote = await client.quotes.create(quoteRequest(user.id, { direction: 'offramp', amount: '10.00' }));
 * ```
 */
export function quoteRequest(userId: string, options: { direction?: Direction; amount?: string } = {}): CreateQuoteBody {
  if (options.direction === 'offramp') {
    return {
      user_id: userId,
      source_currency: 'USDT',
      target_currency: 'BRL',
      source_amount: options.amount ?? '20.00',
      // Any CPF with valid check digits resolves in a sandbox (a synthetic holder).
      pix_key: generateCpf(),
      pix_key_type: 'cpf',
      deposit_network: 'polygon',
    };
  }
  return {
    user_id: userId,
    source_currency: 'BRL',
    target_currency: 'USDT',
    source_amount: options.amount ?? '100.00',
    destination_wallet_address: SCENARIO_WALLET_ADDRESS,
    destination_wallet_network: 'polygon',
  };
}

/** The Pix payment (onramp) or the USDT deposit (offramp) arrives. */
async function pay(run: Run, c: Conversion, body: SimulatePaymentBody): Promise<Conversion> {
  const helpers = run.client.testHelpers.conversions;
  const next = c.transaction_type === 'pix_onramp' ? await helpers.simulateOnrampPixPaid(c.id, body) : await helpers.simulateOfframpDeposit(c.id, body);
  return run.noteConversion(next);
}

async function advance(run: Run, seconds: number, why: string): Promise<void> {
  const { now } = await run.client.testHelpers.clock.advance({ seconds });
  run.note({ object: 'clock', id: now, detail: `advanced ${seconds} s (${why})` });
}

async function standby(run: Run, c: Conversion, reason: StandbyReason): Promise<Conversion> {
  const expected = new Big(c.expected_source_amount);
  switch (reason) {
    case 'under_funded':
      return pay(run, c, { amount: expected.div(2).round(c.transaction_type === 'pix_onramp' ? 2 : 6, Big.roundDown).toFixed() });
    case 'over_funded':
      return pay(run, c, { amount: expected.plus(1).toFixed() });
    case 'window_expired': {
      // A deposit seen but not confirmed when the window closes.
      await pay(run, c, { confirmed: false });
      const clock = await run.client.testHelpers.clock.retrieve();
      const seconds = Math.ceil((Date.parse(c.deposit_window_expires_at as string) - Date.parse(clock.now)) / 1000) + 1;
      await advance(run, Math.max(1, seconds), 'past the deposit window');
      return run.noteConversion(await run.client.conversions.retrieve(c.id));
    }
    case 'duplicate_deposit':
      await pay(run, c, { confirmed: false });
      return pay(run, c, {});
    case 'wrong_address':
      return pay(run, c, { deposit_address: WRONG_ADDRESS });
    case 'late_post_window':
      // Confirmed after the window closed, before the expiry was applied (the helper's `late`).
      return pay(run, c, { late: true });
  }
}

/** Checks a goal against a direction before any call; answers the direction to use. */
export function directionFor(goal: ConversionGoal, direction: Direction | undefined): Direction {
  const offrampOnly = goal.status === 'standby' && goal.reason !== undefined && OFFRAMP_ONLY_STANDBY_REASONS.includes(goal.reason);
  if (goal.status === 'standby' && goal.reason !== undefined && !STANDBY_REASONS.includes(goal.reason)) {
    throw new ScenarioError(`Unknown standby reason ${JSON.stringify(goal.reason)}: one of ${STANDBY_REASONS.join(', ')}.`);
  }
  if (goal.status === 'failed' && goal.reason !== undefined && goal.reason !== 'pix_send_failed' && !FAIL_REASONS.includes(goal.reason as never)) {
    throw new ScenarioError(`Unknown failure reason ${JSON.stringify(goal.reason)}: one of ${[...FAIL_REASONS, 'pix_send_failed'].join(', ')}.`);
  }
  if (offrampOnly && direction === 'onramp') throw new ScenarioError(`Standby ${goal.reason} happens to offramps only: use the offramp direction.`);
  return direction ?? (offrampOnly ? 'offramp' : 'onramp');
}

/** The path to each goal from an accepted quote. */
async function bring(run: Run, goal: ConversionGoal, c: Conversion): Promise<Conversion> {
  const helpers = run.client.testHelpers.conversions;
  switch (goal.status) {
    case 'awaiting_deposit':
      return c;
    case 'funded':
      return pay(run, c, {});
    case 'completed':
      return pay(run, c, { settle: true });
    case 'standby':
      return standby(run, c, goal.reason ?? 'under_funded');
    case 'liquidated': {
      await standby(run, c, 'under_funded');
      return run.noteConversion(await run.client.conversions.liquidate(c.id));
    }
    case 'failed': {
      const reason = goal.reason ?? 'pix_expired';
      if (reason === 'pix_send_failed') {
        await pay(run, c, {});
        return run.noteConversion(await helpers.failPix(c.id));
      }
      return run.noteConversion(await helpers.fail(c.id, { reason }));
    }
    case 'expired':
      return run.noteConversion(await helpers.expire(c.id));
    case 'canceled':
      return run.noteConversion(await run.client.conversions.cancel(c.id));
    case 'abandoned': {
      await standby(run, c, 'under_funded');
      await advance(run, STANDBY_SECONDS + 1, 'past the 7 days of standby');
      return run.noteConversion(await run.client.conversions.retrieve(c.id));
    }
  }
}

/**
 * A conversion brought to `status` (and `reason`, for standby and failed) in either direction:
 * an approved user, a quote, accepted, then the helper calls and clock moves that lead there.
 * Answers the user, the quote, the conversion, each step and the events it caused; throws
 * {@link ScenarioError} when the conversion ends elsewhere.
 *
 * | status | path |
 * |---|---|
 * | `awaiting_deposit` | the accepted quote |
 * | `funded` | paid (onramp: the Pix; offramp: the USDT deposit), not settled |
 * | `completed` | paid and settled |
 * | `standby` | `under_funded` (half paid), `over_funded` (one more), `window_expired` (a deposit left unconfirmed, then the clock past the window), `duplicate_deposit`, `wrong_address`, `late_post_window` |
 * | `liquidated` | standby `under_funded`, then `POST /v1/conversions/{id}/liquidate` |
 * | `failed` | the fail helper with `reason`; `pix_send_failed`: funded, then the Pix payout fails |
 * | `expired` | the expire helper |
 * | `canceled` | `POST /v1/conversions/{id}/cancel` |
 * | `abandoned` | standby `under_funded`, then the tenant's clock 7 days on |
 *
 * @example
 * ```ts
 * const { conversion, events } = await createConversion(client, { status: 'standby', reason: 'over_funded', direction: 'offramp' });
 * ```
 */
export async function createConversion(client: PixUsdt, options: ConversionScenarioOptions): Promise<ConversionScenario> {
  const goal = { status: options.status, reason: options.reason } as ConversionGoal;
  const direction = directionFor(goal, options.direction);
  const run = new Run(client, options);
  await run.start();
  const opened = await open(run, direction, options.amount, options.userId);
  const conversion = await bring(run, goal, opened.conversion);
  const reason = conversion.status === 'standby' ? conversion.standby_reason : conversion.status === 'failed' ? conversion.failure_reason : undefined;
  const wanted = goal.status === 'standby' ? (goal.reason ?? 'under_funded') : goal.status === 'failed' ? (goal.reason ?? 'pix_expired') : undefined;
  if (conversion.status !== goal.status || reason !== wanted) {
    const got = `${conversion.status}${reason === undefined || reason === null ? '' : ` (${reason})`}`;
    throw new ScenarioError(
      `The conversion ${conversion.id} ended ${got}, not ${goal.status}${wanted === undefined ? '' : ` (${wanted})`}: the deployment may be configured differently (limits, price feed, timings, faults).`,
      run.steps,
      conversion,
    );
  }
  return { user: opened.user, quote: opened.quote, conversion, ...(await run.record()) };
}
