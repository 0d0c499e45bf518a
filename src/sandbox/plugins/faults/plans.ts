/**
 * Fault plans as data: which calls (operation pattern, tenant, n-th call) get which fault.
 * Deterministic: the same sequence of calls gets the same faults (probabilities use a seeded hash
 * of the call number, never `Math.random`).
 * @module
 */
import type { ErrorCode, ErrorDetails } from '../../core/errors.js';
import { ERROR_STATUS } from '../../core/errors.js';
import { hash53 } from '../../core/random.js';
import { PathPattern } from '../../http/path.js';

/** What happens to a call that a plan picks. */
export type FaultAction =
  | {
      /** Answer an error in the reference's envelope (with a request id), without running the operation. */
      type: 'error';
      /** The error code of the envelope. */
      code: ErrorCode;
      /** Default: the code's status (429, 500, 502, 503...). */
      status?: number;
      /** Default: a standard message of the code. */
      message?: string;
      /** 429: the `Retry-After` header and `details.retry_after_seconds` (default 1). */
      retryAfterSeconds?: number;
      /** 502: `details.upstream` (default `pix_bank`). */
      upstream?: string;
      /** Extra `details` of the envelope. */
      details?: ErrorDetails;
    }
  /** Waits this many real milliseconds before running the operation (its idempotency record stays "in progress"). */
  | {
      /** Delays the call. */
      type: 'latency';
      /** The delay, in real milliseconds. */
      ms: number;
    }
  /** The caller's `fetch` rejects (a `TypeError`, as on a network failure); nothing runs. */
  | {
      /** Fails the call as a network error. */
      type: 'network';
    }
  /** The operation runs and its answer is stored for the Idempotency-Key, then the caller's `fetch` rejects. */
  | {
      /** Applies the call, then loses the answer. */
      type: 'commit_then_lose';
    };

/** A fault plan as given to `sandbox.faults.add`. */
export interface FaultPlanInput {
  /**
   * `"METHOD PATH"` or `"PATH"` (any method). METHOD: `GET`, `POST`, `PATCH`, `DELETE`, `*`, or
   * several joined by `|`. PATH segments: literal, `:name` or `*` (one segment), `**` (any number).
   * Examples: `"POST /v1/quotes/:id/accept"`, `"POST|PATCH|DELETE /v1/**"`.
   */
  match: string;
  /** Only calls of this tenant (default: every tenant). */
  tenantId?: string;
  /** The first matching call that faults, counting from 1 (default 1, or `every`). */
  nth?: number;
  /** How many calls fault at most (default 1 when `nth` alone is given, else no limit). */
  times?: number;
  /** From `nth` on, every `every`-th matching call faults (default 1: each one). */
  every?: number;
  /** Each call that the rules above pick faults with this probability (seeded, deterministic). */
  probability?: number;
  /** Seed of `probability` (default 0). */
  seed?: number | string;
  /** What happens to a call that faults. */
  fault: FaultAction;
}

/** A fault plan in force, with its counters. */
export interface FaultPlan extends Readonly<FaultPlanInput> {
  /** The plan's id (what `add` returned; pass it to `remove`). */
  readonly id: string;
  /** Matching calls seen so far. */
  readonly calls: number;
  /** Calls that got the fault. */
  readonly hits: number;
}

/** A plan with its compiled matcher and mutable counters. */
export interface ActivePlan {
  id: string;
  input: FaultPlanInput;
  methods: Set<string> | null;
  /** Matched segment by segment, in time linear in the path (../../http/path.ts): no regex from user input. */
  path: PathPattern;
  nth: number;
  every: number;
  times: number;
  calls: number;
  hits: number;
}

const METHODS = new Set(['GET', 'POST', 'PATCH', 'DELETE', 'PUT']);

function compilePath(pattern: string): PathPattern {
  try {
    return new PathPattern(pattern);
  } catch (error) {
    throw new RangeError(`Fault plan match: ${(error as Error).message}`);
  }
}

function positiveInt(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`Fault plan ${name} must be a positive integer.`);
  return value;
}

function checkAction(fault: FaultAction): void {
  switch (fault?.type) {
    case 'error':
      if (!(fault.code in ERROR_STATUS)) throw new RangeError(`Fault plan: unknown error code ${String(fault.code)}.`);
      if (fault.status !== undefined && (!Number.isInteger(fault.status) || fault.status < 400 || fault.status > 599)) {
        throw new RangeError('Fault plan: status must be an integer from 400 to 599.');
      }
      if (fault.retryAfterSeconds !== undefined && !(fault.retryAfterSeconds >= 0)) throw new RangeError('Fault plan: retryAfterSeconds must be >= 0.');
      return;
    case 'latency':
      if (!(Number.isFinite(fault.ms) && fault.ms >= 0)) throw new RangeError('Fault plan: latency ms must be a non-negative number.');
      return;
    case 'network':
    case 'commit_then_lose':
      return;
    default:
      throw new RangeError('Fault plan: fault.type must be error, latency, network or commit_then_lose.');
  }
}

/** Validates and compiles a plan. Throws a RangeError on bad input. */
export function compilePlan(id: string, input: FaultPlanInput): ActivePlan {
  if (typeof input?.match !== 'string' || input.match.trim() === '') throw new RangeError('Fault plan: match is required ("METHOD /path").');
  const text = input.match.trim();
  const space = text.indexOf(' ');
  const methodPart = space < 0 ? '*' : text.slice(0, space).trim().toUpperCase();
  const pathPart = space < 0 ? text : text.slice(space + 1).trim();
  let methods: Set<string> | null = null;
  if (methodPart !== '*') {
    methods = new Set(methodPart.split('|'));
    for (const m of methods) if (!METHODS.has(m)) throw new RangeError(`Fault plan match: unknown method ${m}.`);
  }
  checkAction(input.fault);
  if (input.probability !== undefined && !(input.probability >= 0 && input.probability <= 1)) {
    throw new RangeError('Fault plan probability must be from 0 to 1.');
  }
  const every = positiveInt(input.every, 'every') ?? 1;
  const nth = positiveInt(input.nth, 'nth') ?? (input.every !== undefined ? every : 1);
  const onlyNth = input.nth !== undefined && input.every === undefined && input.probability === undefined;
  const times = positiveInt(input.times, 'times') ?? (onlyNth ? 1 : Infinity);
  return { id, input: structuredClone(input), methods, path: compilePath(pathPart), nth, every, times, calls: 0, hits: 0 };
}

/** Whether a plan concerns this call (before counting). */
export function planMatches(plan: ActivePlan, method: string, path: string, tenantId: string): boolean {
  if (plan.input.tenantId !== undefined && plan.input.tenantId !== tenantId) return false;
  if (plan.methods && !plan.methods.has(method)) return false;
  return plan.path.test(path);
}

/** Counts a matching call and says whether it is picked (consumes a hit when it is). */
export function countCall(plan: ActivePlan, take: boolean): boolean {
  const n = ++plan.calls;
  if (!take || n < plan.nth || (n - plan.nth) % plan.every !== 0 || plan.hits >= plan.times) return false;
  const { probability, seed = 0 } = plan.input;
  if (probability !== undefined && hash53(`${String(seed)}:${n}`, 7) / 2 ** 53 >= probability) return false;
  plan.hits++;
  return true;
}

/** The public view of a plan. */
export function planView(plan: ActivePlan): FaultPlan {
  return { ...structuredClone(plan.input), id: plan.id, calls: plan.calls, hits: plan.hits };
}
