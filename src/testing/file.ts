/**
 * `runScenarioFile`: a declarative file of steps (create, scenario, helper, call, advance, expect)
 * run through the public client, each step able to reference an earlier answer (`${user.id}`).
 * `pix-usdt-sandbox trigger --file` runs the same function against a server.
 * @module
 */
import * as z from 'zod/mini';
import { isApiError, isPixUsdtError, type PixUsdt } from '../index.js';
import { parseRequest } from '../models/issues.js';
import type {
  CALLS,
  HELPERS} from './file-schema.js';
import {
  MAX_ADVANCE_SECONDS,
  MAX_SCENARIO_DEPTH,
  MAX_SCENARIO_FILE_CHARS,
  MAX_SCENARIO_STEPS,
  type ScenarioFile,
  type ScenarioFileStep,
  type StepKind,
  STEP_KINDS,
  ScenarioFileSchema,
  advanceSeconds,
} from './file-schema.js';
import { createConversion, createUser, type ConversionScenarioOptions, type UserScenarioOptions } from './scenarios.js';

/** One step's outcome. */
export interface ScenarioFileStepResult {
  /** 1-based position in the file. */
  index: number;
  /** The step's `id`, if it has one. */
  id: string | null;
  /** Its kind: the key that names it. */
  kind: StepKind;
  /** What it did, e.g. `create quote`, `helper conversions.fail`, `advance 900 s`, `expect conversion status=standby`. */
  summary: string;
  /** Whether it did what it should (for `expect_error`: failed with that code). */
  ok: boolean;
  /** Its answer (the object, or the error envelope of an expected error); `undefined` for an expect or a failed step. */
  answer?: unknown;
  /** Why it failed. */
  error?: string;
}

/** What a scenario file did. */
export interface ScenarioFileResult {
  /** The file's `name`, or `null`. */
  name: string | null;
  /** Every step ran and did what it should. */
  ok: boolean;
  /** The steps that ran, in order (the failed one last). */
  steps: ScenarioFileStepResult[];
  /** The first failure, as a sentence naming its step. */
  failure: string | null;
}

/** Options of {@link runScenarioFile}. */
export interface RunScenarioFileOptions {
  /** The client of the deployment to run against (`sandbox.clientOptions()`, or a server's URL and key). */
  client: PixUsdt;
  /** Called after each step (progress for a CLI or a log). */
  onStep?: (step: ScenarioFileStepResult) => void;
  /** Throw {@link ScenarioFileError} when a step fails (default `true`); `false` answers the result with `ok: false`. */
  throwOnFailure?: boolean;
  /** How messages name the file (a path), default `scenario file`. */
  source?: string;
}

/** Where a scenario file is wrong: the step (1-based, `null` for the file itself), the field path, what is wrong. */
export interface ScenarioFileIssue {
  step: number | null;
  path: string;
  message: string;
}

/**
 * A scenario file that is not valid (`issues`, nothing ran), or a step that failed (`result`,
 * the steps that ran). The message names the step.
 */
export class ScenarioFileError extends Error {
  override readonly name = 'ScenarioFileError';
  /** What is wrong with the file; empty when a step failed. */
  readonly issues: ScenarioFileIssue[];
  /** The steps that ran, when a step failed. */
  readonly result: ScenarioFileResult | null;

  constructor(message: string, issues: ScenarioFileIssue[], result: ScenarioFileResult | null = null) {
    super(message);
    this.issues = issues;
    this.result = result;
  }
}

function kindOf(step: unknown): StepKind[] {
  if (step === null || typeof step !== 'object' || Array.isArray(step)) return [];
  return (Object.keys(STEP_KINDS) as StepKind[]).filter((k) => Object.hasOwn(step, k));
}

function label(index: number, step: unknown): string {
  const id = step !== null && typeof step === 'object' && typeof (step as { id?: unknown }).id === 'string' ? ` ("${(step as { id: string }).id}")` : '';
  return `step ${index}${id}`;
}

/**
 * Validates a scenario file (text or parsed JSON) against the format, each step against its
 * kind's schema, and every reference against the earlier steps' ids; throws
 * {@link ScenarioFileError} listing every issue with its step.
 */
export function parseScenarioFile(input: string | unknown, source = 'scenario file'): ScenarioFile {
  const tooLarge = (size: number): ScenarioFileError =>
    new ScenarioFileError(`${source} is too large: at most ${MAX_SCENARIO_FILE_CHARS} characters of JSON; it has ${size}.`, [{ step: null, path: '', message: `At most ${MAX_SCENARIO_FILE_CHARS} characters` }]);
  let data: unknown = input;
  if (typeof input === 'string') {
    if (input.length > MAX_SCENARIO_FILE_CHARS) throw tooLarge(input.length);
    try {
      data = JSON.parse(input);
    } catch (error) {
      throw new ScenarioFileError(`${source} is not JSON: ${(error as Error).message}`, [{ step: null, path: '', message: 'not JSON' }]);
    }
  }
  // Before anything walks it: a value nested 50,000 deep overflows the stack of a recursive walk.
  const deep = deeperThan(data, MAX_SCENARIO_DEPTH);
  if (deep !== null) {
    const message = `Nested deeper than ${MAX_SCENARIO_DEPTH} levels of arrays and objects`;
    throw new ScenarioFileError(`${source} is not a valid scenario file (docs/scenario-file.schema.json):\n  file: ${deep}: ${message}`, [{ step: null, path: deep, message }]);
  }
  if (typeof input !== 'string') {
    let size: number;
    try {
      size = JSON.stringify(data)?.length ?? 0;
    } catch {
      throw new ScenarioFileError(`${source} is not JSON: it cannot be serialised`, [{ step: null, path: '', message: 'not JSON' }]);
    }
    if (size > MAX_SCENARIO_FILE_CHARS) throw tooLarge(size);
  }
  const issues: ScenarioFileIssue[] = [];
  const top = z.safeParse(z.looseObject({ steps: z.array(z.unknown()).check(z.minLength(1)) }), data);
  if (!top.success) {
    issues.push({ step: null, path: 'steps', message: 'A scenario file is an object with "steps": a non-empty array of steps.' });
  } else if (top.data.steps.length > MAX_SCENARIO_STEPS) {
    issues.push({ step: null, path: 'steps', message: `At most ${MAX_SCENARIO_STEPS} steps; this file has ${top.data.steps.length}` });
  } else {
    const seen = new Set<string>();
    top.data.steps.forEach((step, i) => {
      const index = i + 1;
      const kinds = kindOf(step);
      if (kinds.length !== 1) {
        const message = kinds.length === 0 ? `names no kind: give one of ${Object.keys(STEP_KINDS).join(', ')}` : `names ${kinds.join(' and ')}: one kind per step`;
        issues.push({ step: index, path: '', message });
        return;
      }
      const kind = kinds[0] as StepKind;
      // Worded as the API words a bad request body (what was expected, what was received).
      const parsed = parseRequest(STEP_KINDS[kind] as z.ZodMiniType, step);
      if (!parsed.ok) {
        for (const issue of parsed.issues) issues.push({ step: index, path: issue.path, message: issue.message });
        return;
      }
      for (const ref of references(step)) {
        if (!seen.has(ref)) {
          const earlier = seen.size === 0 ? 'no step before it has an id' : `earlier steps: ${[...seen].join(', ')}`;
          issues.push({ step: index, path: '', message: `\${${ref}...} names no earlier step (${earlier})` });
        }
      }
      const id = (step as { id?: string }).id;
      if (id !== undefined) {
        if (seen.has(id)) issues.push({ step: index, path: 'id', message: `"${id}" is the id of an earlier step too` });
        seen.add(id);
      }
    });
    const rest = parseRequest(ScenarioFileSchema as z.ZodMiniType, { ...(data as object), steps: [] });
    for (const issue of rest.ok ? [] : rest.issues) {
      if (!issue.path.startsWith('steps')) issues.push({ step: null, path: issue.path, message: issue.message });
    }
  }
  if (issues.length > 0) {
    const lines = issues.map((issue) => `  ${issue.step === null ? 'file' : label(issue.step, (data as { steps: unknown[] }).steps[issue.step - 1])}: ${issue.path === '' ? '' : `${issue.path}: `}${issue.message}`);
    throw new ScenarioFileError(`${source} is not a valid scenario file (docs/scenario-file.schema.json):\n${lines.join('\n')}`, issues);
  }
  return data as ScenarioFile;
}

/**
 * The path of the first array or object nested deeper than `max` in a parsed value (`null`:
 * none), found without recursion.
 */
function deeperThan(value: unknown, max: number): string | null {
  const stack: Array<[unknown, number, string]> = [[value, 1, '']];
  while (stack.length > 0) {
    const [v, depth, path] = stack.pop() as [unknown, number, string];
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return path;
    for (const [k, child] of Object.entries(v)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1, path === '' ? k : `${path}.${k}`]);
  }
  return null;
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_-]*)((?:\.[^.}]+)*)\}/g;

/** The step ids a value references. */
function references(value: unknown): string[] {
  if (typeof value === 'string') return [...value.matchAll(REFERENCE)].map((m) => m[1] as string);
  if (Array.isArray(value)) return value.flatMap(references);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => (k === 'id' ? [] : references(v)));
  return [];
}

/** Replaces every reference in `value` with the answer it names; a whole-string reference keeps the value's type. */
function resolve(value: unknown, answers: Map<string, unknown>, where: string): unknown {
  if (typeof value === 'string') {
    const whole = /^\$\{([A-Za-z_][A-Za-z0-9_-]*)((?:\.[^.}]+)*)\}$/.exec(value);
    if (whole) return lookup(whole[1] as string, whole[2] as string, answers, where);
    return value.replace(REFERENCE, (_, id: string, path: string) => {
      const found = lookup(id, path, answers, where);
      return typeof found === 'object' && found !== null ? JSON.stringify(found) : String(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolve(v, answers, where));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, answers, where)]));
  return value;
}

function lookup(id: string, path: string, answers: Map<string, unknown>, where: string): unknown {
  if (!answers.has(id)) throw new StepFailure(`\${${id}${path}} names step "${id}", which has no answer (it failed, or had none)`);
  let current: unknown = answers.get(id);
  const walked = [id];
  for (const part of path.split('.').slice(1)) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, part)) {
      const keys = current !== null && typeof current === 'object' ? Object.keys(current).slice(0, 12).join(', ') : typeof current;
      throw new StepFailure(`\${${id}${path}} in ${where}: ${walked.join('.')} has no "${part}" (it has: ${keys})`);
    }
    current = (current as Record<string, unknown>)[part];
    walked.push(part);
  }
  if (current === undefined) throw new StepFailure(`\${${id}${path}} in ${where} is undefined`);
  return current;
}

/** A step that could not run or did not do what it should. */
class StepFailure extends Error {}

function describeError(error: unknown): string {
  if (isApiError(error)) return `${error.status} ${error.code}: ${error.message}${error.requestId === null ? '' : ` (request ${error.requestId})`}`;
  if (isPixUsdtError(error)) return `${error.name}: ${error.message}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** Deep partial equality: every key of `expected` is in `actual` with an equal value. */
function mismatches(expected: Record<string, unknown>, actual: unknown, prefix = ''): string[] {
  const out: string[] = [];
  for (const [key, want] of Object.entries(expected)) {
    const got = actual !== null && typeof actual === 'object' ? (actual as Record<string, unknown>)[key] : undefined;
    if (want !== null && typeof want === 'object' && !Array.isArray(want)) {
      out.push(...mismatches(want as Record<string, unknown>, got, `${prefix}${key}.`));
    } else if (JSON.stringify(want) !== JSON.stringify(got)) {
      out.push(`${prefix}${key} is ${JSON.stringify(got)}, not ${JSON.stringify(want)}`);
    }
  }
  return out;
}

function summaryOf(kind: StepKind, step: ScenarioFileStep): string {
  const s = step as Record<string, unknown>;
  switch (kind) {
    case 'create':
      return `create ${String(s['create'])}`;
    case 'scenario': {
      const params = (s['params'] ?? {}) as Record<string, unknown>;
      const goal = s['scenario'] === 'conversion' ? ` ${String(params['status'] ?? '?')}${params['reason'] === undefined ? '' : ` (${String(params['reason'])})`}` : '';
      return `scenario ${String(s['scenario'])}${goal}`;
    }
    case 'helper':
      return `helper ${String(s['helper'])}`;
    case 'call':
      return `call ${String(s['call'])}`;
    case 'advance':
      return `advance ${secondsOf(s['advance'] as Record<string, number>)} s`;
    case 'expect': {
      const e = s['expect'] as Record<string, unknown>;
      if ('event' in e) return `expect event ${String(e['event'])}`;
      const resource = ['user', 'quote', 'conversion', 'transaction'].find((r) => r in e) ?? 'object';
      const fields = Object.entries(e['fields'] as Record<string, unknown>).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
      return `expect ${resource} ${fields.join(' ')}`;
    }
  }
}

function secondsOf(d: Record<string, number | undefined>): number {
  return advanceSeconds(d);
}

type Body = Record<string, unknown>;

type Helper = (typeof HELPERS)[number];
type Call = (typeof CALLS)[number];

/** The client method behind each helper name of the format (`resource.method`, snake_case). */
const HELPER_CALLS: Record<Helper, (client: PixUsdt, id: string, body: Body) => Promise<unknown>> = {
  'users.kyc': (c, id, body) => c.testHelpers.users.kyc(id, body as never),
  'conversions.simulate_onramp_pix_paid': (c, id, body) => c.testHelpers.conversions.simulateOnrampPixPaid(id, body),
  'conversions.simulate_offramp_deposit': (c, id, body) => c.testHelpers.conversions.simulateOfframpDeposit(id, body),
  'conversions.deposit': (c, id, body) => c.testHelpers.conversions.deposit(id, body as never),
  'conversions.expire': (c, id, body) => c.testHelpers.conversions.expire(id, body),
  'conversions.fail': (c, id, body) => c.testHelpers.conversions.fail(id, body as never),
  'conversions.fail_pix': (c, id, body) => c.testHelpers.conversions.failPix(id, body),
  'conversions.fail_crypto': (c, id, body) => c.testHelpers.conversions.failCrypto(id, body),
  'transactions.pay': (c, id, body) => c.testHelpers.transactions.pay(id, body),
};

/** The client method behind each call name of the format. */
const PARTNER_CALLS: Record<Call, (client: PixUsdt, id: string) => Promise<unknown>> = {
  'users.retrieve': (c, id) => c.users.retrieve(id),
  'users.wallet': (c, id) => c.users.wallet(id),
  'quotes.retrieve': (c, id) => c.quotes.retrieve(id),
  'conversions.retrieve': (c, id) => c.conversions.retrieve(id),
  'conversions.cancel': (c, id) => c.conversions.cancel(id),
  'conversions.liquidate': (c, id) => c.conversions.liquidate(id),
  'transactions.retrieve': (c, id) => c.transactions.retrieve(id),
};

/** Runs one step; answers its answer (undefined for expect). */
async function execute(client: PixUsdt, kind: StepKind, step: Body, answers: Map<string, unknown>, where: string): Promise<unknown> {
  const params = resolve(step['params'] ?? {}, answers, where) as Body;
  const target = step['target'] === undefined ? '' : String(resolve(step['target'], answers, where));
  const h = client.testHelpers;
  switch (kind) {
    case 'create': {
      switch (step['create']) {
        case 'user':
          return client.users.create(params as never);
        case 'quote':
          return client.quotes.create(params as never);
        case 'conversion': {
          const { quote_id: quoteId, ...body } = params;
          if (typeof quoteId !== 'string') throw new StepFailure('create conversion accepts a quote: give params.quote_id (e.g. "${quote.id}")');
          return client.quotes.accept(quoteId, body as never);
        }
        case 'transaction':
          return client.transactions.create(params as never);
        case 'webhook_endpoint':
          return client.webhookEndpoints.create(params as never);
      }
      break;
    }
    case 'scenario': {
      const { user_id: userId, ...rest } = params;
      const options = { ...rest, ...(typeof userId === 'string' ? { userId } : {}), events: false } as Body;
      if (step['scenario'] === 'user') {
        const { user } = await createUser(client, options as UserScenarioOptions);
        return { user };
      }
      if (typeof options['status'] !== 'string') throw new StepFailure('scenario conversion needs params.status (e.g. "standby")');
      const { user, quote, conversion } = await createConversion(client, options as unknown as ConversionScenarioOptions);
      return { user, quote, conversion };
    }
    case 'helper':
      return HELPER_CALLS[step['helper'] as Helper](client, target, params);
    case 'call':
      return PARTNER_CALLS[step['call'] as Call](client, target);
    case 'advance': {
      // Checked with the whole file before any step ran (file-schema.ts); kept here for a step built by hand.
      const seconds = secondsOf(step['advance'] as Record<string, number>);
      if (seconds > MAX_ADVANCE_SECONDS) throw new StepFailure(`advance ${seconds} s is more than 365 days`);
      return h.clock.advance({ seconds });
    }
    case 'expect': {
      const e = resolve(step['expect'], answers, where) as Body;
      if (typeof e['event'] === 'string') {
        const objectId = e['object_id'] as string | undefined;
        const page = await h.events.list({ type: e['event'], ...(objectId === undefined ? {} : { object_id: objectId }), limit: 1 });
        if (page.data.length === 0) {
          const recent = (await h.events.list({ limit: 10 })).data.map((ev) => `${ev.type} (${String(ev.data.object['id'])})`);
          throw new StepFailure(`no ${e['event']} event${objectId === undefined ? '' : ` for ${objectId}`} in the tenant's log; the latest: ${recent.join(', ') || 'none'}`);
        }
        return undefined;
      }
      const resource = (['user', 'quote', 'conversion', 'transaction'] as const).filter((r) => typeof e[r] === 'string');
      if (resource.length !== 1) throw new StepFailure('expect names one object: user, quote, conversion or transaction (with fields)');
      const r = resource[0] as 'user' | 'quote' | 'conversion' | 'transaction';
      const id = e[r] as string;
      const actual = await ({ user: client.users, quote: client.quotes, conversion: client.conversions, transaction: client.transactions }[r].retrieve(id) as Promise<unknown>);
      const wrong = mismatches(e['fields'] as Body, actual);
      if (wrong.length > 0) throw new StepFailure(`${r} ${id}: ${wrong.join('; ')}`);
      return undefined;
    }
  }
  throw new StepFailure(`unknown ${kind}`);
}

/**
 * Runs a scenario file (its text, or the parsed JSON) step by step through `client`. Answers
 * every step's outcome; throws {@link ScenarioFileError} when the file is not valid (nothing
 * runs) or, unless `throwOnFailure: false`, when a step fails (the message names the step).
 *
 * @example
 * ```ts
 * const sandbox = createTestSandbox();
 * const result = await runScenarioFile(readFileSync('scenario.json', 'utf8'), { client: sandbox.client });
 * ```
 */
export async function runScenarioFile(file: string | unknown, options: RunScenarioFileOptions): Promise<ScenarioFileResult> {
  const source = options.source ?? 'scenario file';
  const parsed = parseScenarioFile(file, source);
  const answers = new Map<string, unknown>();
  const result: ScenarioFileResult = { name: parsed.name ?? null, ok: true, steps: [], failure: null };
  for (const [i, raw] of parsed.steps.entries()) {
    const step = raw as Body;
    const kind = kindOf(step)[0] as StepKind;
    const id = typeof step['id'] === 'string' ? step['id'] : null;
    const where = label(i + 1, step);
    const expectError = step['expect_error'] as string | undefined;
    const summary = `${summaryOf(kind, raw)}${expectError === undefined ? '' : ` (expect_error ${expectError})`}`;
    const outcome: ScenarioFileStepResult = { index: i + 1, id, kind, summary, ok: true };
    try {
      const answer = await execute(options.client, kind, step, answers, where);
      if (expectError !== undefined) throw new StepFailure(`expected the error ${expectError}, but the call succeeded`);
      if (answer !== undefined) {
        outcome.answer = answer;
        if (id !== null) answers.set(id, answer);
      }
    } catch (error) {
      if (expectError !== undefined && isApiError(error) && error.code === expectError) {
        const envelope = { code: error.code, message: error.message, request_id: error.requestId, details: error.details ?? null };
        outcome.answer = envelope;
        if (id !== null) answers.set(id, envelope);
      } else {
        outcome.ok = false;
        const why = error instanceof StepFailure ? error.message : expectError !== undefined ? `expected the error ${expectError}, got ${describeError(error)}` : describeError(error);
        outcome.error = why;
        result.ok = false;
        result.failure = `${where}, ${outcome.summary}: ${why}`;
      }
    }
    result.steps.push(outcome);
    options.onStep?.(outcome);
    if (!outcome.ok) break;
  }
  if (!result.ok && options.throwOnFailure !== false) throw new ScenarioFileError(`${source}: ${result.failure}`, [], result);
  return result;
}
