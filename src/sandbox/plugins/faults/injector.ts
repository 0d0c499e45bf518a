/**
 * Fault injection in the request pipeline. Three stages:
 *
 * - `fault_transport`, first of all: turns a call marked "lost" into the network-fault marker
 *   that `sandbox.fetch` rejects on (a pipeline stage cannot make `fetch` reject by itself:
 *   `runPipeline` turns every throw into an error envelope).
 * - `faults`, after authentication, routing and authorization (so plans are per tenant and per
 *   operation; the rate limit comes later, inside idempotency) and before idempotency (so an injected error is never stored for
 *   the Idempotency-Key, and a retry with the same key is counted as a new call): picks the plan
 *   and answers errors and network failures at once.
 * - `fault_latency`, after idempotency, validation and the rate limit, right before `execute`:
 *   latency, while the idempotency record stays "in progress".
 *
 * "Commit, then lose the response" lets the call go on through idempotency and `execute` (the
 * operation runs and its answer is stored for the key, or a stored answer is replayed), then
 * marks it lost on the way out: only the caller never hears back.
 * @module
 */
import type { Random } from '../../core/random.js';
import { realSleep } from '../../core/real-time.js';
import { FAULT_PLAN_HEADER, NETWORK_FAULT_HEADER } from './marker.js';
import { ERROR_STATUS } from '../../core/errors.js';
import { type Answer, type Call, type Middleware, type StageInsert, envelopeAnswer } from '../../http/call.js';
import { type ActivePlan, type FaultAction, type FaultPlan, type FaultPlanInput, compilePlan, countCall, planMatches, planView } from './plans.js';

export { FAULT_PLAN_HEADER, NETWORK_FAULT_HEADER, isNetworkFault } from './marker.js';

const EXEMPT = /^\/v1\/test_helpers\/(faults|clock)(\/|$)/;
const DEFAULT_MESSAGES: Partial<Record<string, string>> = {
  rate_limit_exceeded: 'Too many requests (injected fault).',
  internal_error: 'An unexpected error occurred (injected fault).',
  upstream_unavailable: 'An upstream provider is unreachable (injected fault).',
  wallet_provider_unavailable: 'The wallet provider is unavailable (injected fault).',
  price_feed_unavailable: 'The price feed is unavailable (injected fault).',
};

/** Fault injection of one sandbox, on `sandbox.faults`. */
export interface SandboxFaults {
  /** Adds a plan; returns its id. Throws a RangeError on a malformed plan. */
  add(plan: FaultPlanInput): string;
  /** Removes a plan; false when there was none with this id. */
  remove(id: string): boolean;
  /** Removes every plan (of one tenant, when given). */
  clear(tenantId?: string): void;
  /** The plans in force, with their counters (of one tenant, when given). */
  list(tenantId?: string): FaultPlan[];
}

interface Mark {
  plan: ActivePlan;
  action: FaultAction;
  lost: boolean;
}

function errorAnswerOf(action: Extract<FaultAction, { type: 'error' }>, plan: ActivePlan, requestId: string): Answer {
  const details: Record<string, unknown> = { ...action.details };
  const headers: Record<string, string> = { [FAULT_PLAN_HEADER]: plan.id };
  const status = action.status ?? ERROR_STATUS[action.code];
  if (action.code === 'rate_limit_exceeded' || status === 429 || action.retryAfterSeconds !== undefined) {
    const seconds = action.retryAfterSeconds ?? 1;
    details['retry_after_seconds'] = seconds;
    headers['retry-after'] = String(seconds);
  }
  if (action.code === 'upstream_unavailable' || action.upstream !== undefined) details['upstream'] = action.upstream ?? 'pix_bank';
  const message = action.message ?? DEFAULT_MESSAGES[action.code] ?? `Injected fault: ${action.code}.`;
  return envelopeAnswer({ status, code: action.code, message, details: Object.keys(details).length > 0 ? details : undefined, headers }, requestId);
}

const networkAnswer = (plan: ActivePlan): Answer => ({ status: 599, body: null, headers: { [NETWORK_FAULT_HEADER]: `network;plan=${plan.id}` } });


/** How many plans one tenant may hold over HTTP (`POST /v1/test_helpers/faults`). */
export const MAX_PLANS_PER_TENANT = 100;

/** The fault injector of one sandbox. */
export class FaultInjector implements SandboxFaults {
  readonly #random: Random;
  // Every plan in the order added (the listing's order), and the same plans by tenant: a call
  // looks at its own tenant's plans and the sandbox-wide ones only, so a tenant's plans cost
  // nothing to another tenant's calls.
  #plans: ActivePlan[] = [];
  readonly #byTenant = new Map<string, ActivePlan[]>();
  #everyTenant: ActivePlan[] = [];
  readonly #order = new WeakMap<ActivePlan, number>();
  #added = 0;
  readonly #marks = new WeakMap<Call, Mark>();

  constructor(random: Random) {
    this.#random = random;
  }

  /** Its stages in the app; idle (skipped) while no plan is in force. */
  get stages(): StageInsert[] {
    const idle = (): boolean => this.#plans.length === 0;
    return [
      { name: 'fault_transport', run: this.#transport, before: 'authenticate', idle },
      { name: 'faults', run: this.#pick, before: 'idempotency', idle },
      { name: 'fault_latency', run: this.#latency, before: 'execute', idle },
    ];
  }

  add(plan: FaultPlanInput): string {
    const active = compilePlan(this.#random.uuid(), plan);
    this.#order.set(active, this.#added++);
    this.#plans.push(active);
    const tenantId = active.input.tenantId;
    if (tenantId === undefined) this.#everyTenant.push(active);
    else this.#byTenant.set(tenantId, [...(this.#byTenant.get(tenantId) ?? []), active]);
    return active.id;
  }

  /** How many plans a tenant holds (its own, not the sandbox-wide ones). */
  countOf(tenantId: string): number {
    return this.#byTenant.get(tenantId)?.length ?? 0;
  }

  remove(id: string): boolean {
    const before = this.#plans.length;
    this.#keep((p) => p.id !== id);
    return this.#plans.length < before;
  }

  clear(tenantId?: string): void {
    this.#keep((p) => tenantId !== undefined && p.input.tenantId !== tenantId);
  }

  #keep(keep: (plan: ActivePlan) => boolean): void {
    this.#plans = this.#plans.filter(keep);
    this.#everyTenant = this.#everyTenant.filter(keep);
    for (const [tenantId, plans] of this.#byTenant) {
      const left = plans.filter(keep);
      if (left.length === 0) this.#byTenant.delete(tenantId);
      else if (left.length < plans.length) this.#byTenant.set(tenantId, left);
    }
  }

  list(tenantId?: string): FaultPlan[] {
    return this.#plans.filter((p) => tenantId === undefined || p.input.tenantId === tenantId).map(planView);
  }

  /** The plan with this id, if it belongs to the tenant (the HTTP helpers see their tenant's plans only). */
  get(id: string, tenantId: string): FaultPlan | undefined {
    const plan = this.#byTenant.get(tenantId)?.find((p) => p.id === id);
    return plan && planView(plan);
  }

  /** The plans that may concern a call of this tenant, in the order they were added. */
  #plansOf(tenantId: string): readonly ActivePlan[] {
    const own = this.#byTenant.get(tenantId) ?? [];
    const every = this.#everyTenant;
    if (every.length === 0) return own;
    if (own.length === 0) return every;
    const order = (p: ActivePlan): number => this.#order.get(p) as number;
    return [...own, ...every].sort((a, b) => order(a) - order(b));
  }

  readonly #transport: Middleware = (call, next) =>
    next().then(
      (answer) => {
        const mark = this.#marks.get(call);
        return mark?.lost ? networkAnswer(mark.plan) : answer;
      },
      (error: unknown) => {
        const mark = this.#marks.get(call);
        if (!mark?.lost) throw error;
        return networkAnswer(mark.plan);
      },
    );

  readonly #pick: Middleware = (call, next) => {
    const tenantId = call.tenantId;
    if (this.#plans.length === 0 || tenantId === null || EXEMPT.test(call.path)) return next();
    let chosen: ActivePlan | null = null;
    for (const plan of this.#plansOf(tenantId)) {
      if (!planMatches(plan, call.method, call.path, tenantId)) continue;
      if (countCall(plan, chosen === null)) chosen = plan;
    }
    if (!chosen) return next();
    const action = chosen.input.fault;
    if (action.type === 'error') return Promise.resolve(errorAnswerOf(action, chosen, call.requestId));
    const mark: Mark = { plan: chosen, action, lost: action.type === 'network' };
    this.#marks.set(call, mark);
    if (action.type === 'network') return Promise.resolve(networkAnswer(chosen));
    if (action.type === 'latency') return next();
    // commit_then_lose: whatever happens further in (a fresh run, a replay, a refusal), the caller never hears back.
    return next().finally(() => {
      mark.lost = true;
    });
  };

  readonly #latency: Middleware = (call, next) => {
    const action = this.#marks.get(call)?.action;
    return action?.type === 'latency' ? realSleep(action.ms).then(next) : next();
  };
}
