/**
 * Answers of sandbox extensions that src/models does not describe (they are not part of the
 * partner API, so the client bundle does not carry them). Each mirrors a serializer of the
 * sandbox, named beside it; the client never parses these.
 * @module
 */
import * as z from 'zod/mini';
import { ERROR_CODES } from '../../src/client/codes.js';

const Count = z.nullable(z.int());

/** A fault plan as `planOut` in src/sandbox/plugins/faults/routes.ts writes it. */
export const FaultPlan = z.looseObject({
  id: z.string(),
  match: z.string(),
  nth: Count,
  times: Count,
  every: Count,
  probability: z.nullable(z.number()),
  seed: z.nullable(z.union([z.number(), z.string()])),
  fault: z.union([
    z.looseObject({
      type: z.literal('error'),
      code: z.enum(ERROR_CODES),
      status: z.int(),
      message: z.nullable(z.string()),
      retry_after_seconds: z.nullable(z.int()),
      upstream: z.nullable(z.string()),
    }),
    z.looseObject({ type: z.literal('latency'), ms: z.int() }),
    z.looseObject({ type: z.literal('network') }),
    z.looseObject({ type: z.literal('commit_then_lose') }),
  ]),
  /** Matching calls seen so far. */
  calls: z.int(),
  /** Calls that faulted so far. */
  hits: z.int(),
});

/** `DELETE /v1/test_helpers/faults`: how many plans were removed. */
export const ClearedFaultPlans = z.looseObject({ deleted: z.int() });

/** `DELETE /v1/test_helpers/faults/{id}`. */
export const DeletedFaultPlan = z.looseObject({ id: z.string(), deleted: z.literal(true) });

/** Extension schemas by component name. */
export const EXTENSION_SCHEMAS = { FaultPlan, ClearedFaultPlans, DeletedFaultPlan } as const;
