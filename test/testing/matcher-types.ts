/**
 * The matchers' types in each runner's `expect` (type-checked by `npm run typecheck`, never run):
 * vitest's `Matchers`, the `expect` package's (Jest's `@jest/globals`) and Jest's global
 * `jest.Matchers` (@types/jest), from src/testing/matchers-types.d.ts.
 */
import { expect as jestExpect } from '@jest/globals';
import { expect as vitestExpect } from 'vitest';
import type { PixUsdtMatchers } from '../../src/testing/index.js';

export async function typed(request: Request): Promise<void> {
  vitestExpect({}).toHaveConversionStatus('completed');
  vitestExpect({}).not.toHaveEmittedEvent('conversion.completed', { objectId: 'id' });
  await vitestExpect(Promise.reject(new Error('x'))).rejects.toBeApiError('quote_expired');
  await vitestExpect(request).toVerifyWithSecret('whsec_x', { toleranceSeconds: 60 });
  // @ts-expect-error a status is a string
  vitestExpect({}).toHaveConversionStatus(1);

  jestExpect({}).toHaveConversionStatus('standby', 'under_funded');
  jestExpect([]).toHaveEmittedEvent('user.kyc_approved');
  await jestExpect(request).toVerifyWithSecret(['whsec_a', 'whsec_b']);
  // @ts-expect-error toBeApiError takes a code
  jestExpect(new Error('x')).toBeApiError();

  const global: jest.Matchers<void> = {} as jest.Matchers<void>;
  global.toBeApiError('quote_expired');
  const mine: PixUsdtMatchers<void> = global;
  mine.toHaveEmittedEvent('conversion.created');
}
