/**
 * The error catalog is written once (src/models/errors.ts): the client's codes and the
 * sandbox's statuses are the same table, seen through each public entry.
 */
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, isKnownErrorCode } from '../../../src/index.js';
import { ApiError, ERROR_STATUS } from '../../../src/sandbox/index.js';

describe('error catalog', () => {
  it('the client knows exactly the codes the sandbox can answer', () => {
    expect([...ERROR_CODES].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
    for (const code of Object.keys(ERROR_STATUS)) expect(isKnownErrorCode(code)).toBe(true);
  });

  it('every code has an HTTP error status, and the sandbox answers it', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS)) {
      expect(status).toBeGreaterThanOrEqual(400);
      expect(status).toBeLessThanOrEqual(599);
      expect(new ApiError(code as keyof typeof ERROR_STATUS, 'x').status).toBe(status);
    }
  });
});
