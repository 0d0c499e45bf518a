/**
 * How the client checks an answer against its model: the mode of open enums for the duration
 * of one parse, and the outcome as `{ ok, value | issues }`. Depends on no zod at run time
 * (the schemas bring it), so the client holds it before its answer models load.
 * @module
 */
import type * as z from 'zod/mini';
import { toIssues, type Issue } from './issues.js';

// Set only for the duration of one synchronous `parse` call (see `parseModel`), so that the
// same schemas serve the lenient default and strict mode without a second copy of every shape.
let strict = false;

/** Whether the parse running now refuses enum values this SDK does not know (read by `openEnum`). */
export function strictEnums(): boolean {
  return strict;
}

/** The outcome of {@link parseModel}. */
export type ParseOutcome<T> =
  | { ok: true; value: T }
  | { ok: false; value: unknown; issues: Issue[] };

/**
 * Parses API data with a model schema. Strict mode also refuses enum values this SDK does
 * not know; the other modes accept them. Requests go through `parseRequest` (./issues.ts).
 */
export function parseModel<T>(schema: z.ZodMiniType<T>, data: unknown, strictMode: boolean): ParseOutcome<T> {
  strict = strictMode;
  try {
    const result = schema.safeParse(data);
    if (result.success) return { ok: true, value: result.data };
    return { ok: false, value: data, issues: toIssues(result.error.issues) };
  } finally {
    strict = false;
  }
}
