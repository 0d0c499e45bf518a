/**
 * Fuzzing the HTTP surface (issue 6), part 1 of 2: the 100,000 requests are split over two
 * files so that vitest runs them on both cores. FUZZ_SEED and FUZZ_COUNT replay a campaign.
 */
import { describe, it } from 'vitest';
import { campaign } from './campaign.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed1);
const COUNT = Number(process.env['FUZZ_COUNT'] ?? 50_000);

describe('HTTP fuzzing, part 1', () => {
  it(`${COUNT} malformed requests (seed ${SEED}): 4xx envelopes only, no state change`, { timeout: 240_000 }, () => campaign(SEED, COUNT));
});
