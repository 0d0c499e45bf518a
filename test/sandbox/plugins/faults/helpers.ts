/**
 * For the fault tests (raw requests: ../../raw.ts; bodies: test/support/fixtures.ts): the outcome
 * of a call that a fault may make reject.
 */

/** The outcome of a promise: its value or its rejection. */
export async function settle<T>(promise: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await promise };
  } catch (error) {
    return { ok: false, error };
  }
}
