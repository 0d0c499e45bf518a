/**
 * /v1/test_helpers/faults: fault plans over HTTP, for the caller's tenant only (capability
 * `sandbox:control`; 404 in production like every helper). Wire names are snake_case.
 * @module
 */
import * as z from 'zod/mini';
import { ApiError, ERROR_STATUS, type ErrorCode, invalid } from '../../core/errors.js';
import { IdParams } from '../../http/routes/shared.js';
import { type RouteDef, created, define, ok } from '../../http/routes/types.js';
import { type FaultInjector, MAX_PLANS_PER_TENANT } from './injector.js';
import type { FaultAction, FaultPlan, FaultPlanInput } from './plans.js';

const Count = z.optional(z.int().check(z.gte(1), z.lte(1_000_000_000)));
const ErrorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

// `METHOD PATH` or `PATH`: METHOD `*` or methods joined by `|`; PATH from `/`, no spaces (plans.ts reads it).
const MATCH = /^(?:(?:\*|(?:GET|POST|PATCH|DELETE|PUT)(?:\|(?:GET|POST|PATCH|DELETE|PUT))*) )?\/\S*$/;

/** Body of `POST /v1/test_helpers/faults`. */
export const CreateFaultBody = z.strictObject({
  match: z.string().check(z.minLength(1), z.maxLength(500), z.regex(MATCH, 'Expected "METHOD /path" or "/path": METHOD * or GET, POST, PATCH, DELETE, PUT joined by |')),
  nth: Count,
  times: Count,
  every: Count,
  probability: z.optional(z.number().check(z.gte(0), z.lte(1))),
  seed: z.optional(z.union([z.number(), z.string().check(z.maxLength(100))])),
  fault: z.discriminatedUnion('type', [
    z.strictObject({
      type: z.literal('error'),
      code: ErrorCodeSchema,
      status: z.optional(z.int().check(z.gte(400), z.lte(599))),
      message: z.optional(z.string().check(z.maxLength(500))),
      retry_after_seconds: z.optional(z.int().check(z.gte(0), z.lte(86_400))),
      upstream: z.optional(z.string().check(z.maxLength(100))),
    }),
    z.strictObject({ type: z.literal('latency'), ms: z.int().check(z.gte(0), z.lte(60_000)) }),
    z.strictObject({ type: z.literal('network') }),
    z.strictObject({ type: z.literal('commit_then_lose') }),
  ]),
});
type CreateFaultBody = z.infer<typeof CreateFaultBody>;


function actionOf(fault: CreateFaultBody['fault']): FaultAction {
  if (fault.type !== 'error') return fault;
  const action: FaultAction = { type: 'error', code: fault.code };
  if (fault.status !== undefined) action.status = fault.status;
  if (fault.message !== undefined) action.message = fault.message;
  if (fault.retry_after_seconds !== undefined) action.retryAfterSeconds = fault.retry_after_seconds;
  if (fault.upstream !== undefined) action.upstream = fault.upstream;
  return action;
}

/** A plan on the wire. */
function planOut(plan: FaultPlan): Record<string, unknown> {
  const { fault } = plan;
  const wireFault =
    fault.type === 'error'
      ? {
          type: 'error',
          code: fault.code,
          status: fault.status ?? ERROR_STATUS[fault.code],
          message: fault.message ?? null,
          retry_after_seconds: fault.retryAfterSeconds ?? null,
          upstream: fault.upstream ?? null,
        }
      : fault;
  return {
    id: plan.id,
    match: plan.match,
    nth: plan.nth ?? null,
    times: plan.times ?? null,
    every: plan.every ?? null,
    probability: plan.probability ?? null,
    seed: plan.seed ?? null,
    fault: wireFault,
    calls: plan.calls,
    hits: plan.hits,
  };
}

const helper = { capability: 'sandbox:control', sandboxOnly: true, idempotency: 'optional' } as const;
const PATH = '/v1/test_helpers/faults';

/** Fault plan routes, over one injector. */
export function faultRoutes(faults: FaultInjector): RouteDef[] {
  return [
    define({
      ...helper,
      method: 'POST',
      path: PATH,
      body: CreateFaultBody,
      handler({ tenant, body }) {
        const input: FaultPlanInput = { match: body.match, tenantId: tenant.id, fault: actionOf(body.fault) };
        if (body.nth !== undefined) input.nth = body.nth;
        if (body.times !== undefined) input.times = body.times;
        if (body.every !== undefined) input.every = body.every;
        if (body.probability !== undefined) input.probability = body.probability;
        if (body.seed !== undefined) input.seed = body.seed;
        if (faults.countOf(tenant.id) >= MAX_PLANS_PER_TENANT) {
          throw invalid('', `A tenant holds at most ${MAX_PLANS_PER_TENANT} fault plans: remove some first (DELETE /v1/test_helpers/faults, or /v1/test_helpers/faults/{id}).`);
        }
        let id: string;
        try {
          id = faults.add(input);
        } catch (error) {
          throw invalid('match', error instanceof Error ? error.message : 'Invalid fault plan');
        }
        return created(planOut(faults.get(id, tenant.id) as FaultPlan));
      },
    }),
    define({
      ...helper,
      method: 'GET',
      path: PATH,
      handler: ({ tenant }) => ok({ data: faults.list(tenant.id).map(planOut), next_cursor: null }),
    }),
    define({
      ...helper,
      method: 'DELETE',
      path: PATH,
      handler({ tenant }) {
        const count = faults.list(tenant.id).length;
        faults.clear(tenant.id);
        return ok({ deleted: count });
      },
    }),
    define({
      ...helper,
      method: 'DELETE',
      path: `${PATH}/:id`,
      params: IdParams,
      handler({ tenant, params }) {
        if (!faults.get(params.id, tenant.id)) throw new ApiError('not_found', `No fault plan ${params.id}.`);
        faults.remove(params.id);
        return ok({ id: params.id, deleted: true });
      },
    }),
  ];
}
