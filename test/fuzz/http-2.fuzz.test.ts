/**
 * Fuzzing the HTTP surface (issue 6), part 2 of 2 (two files, so that vitest can run them on two
 * workers). The campaign is 50,000 requests a part, 100,000 in all: `npm run fuzz` sends it whole;
 * `npm test` sends the first 10,000 of each part (the generator is seeded, so they are the same
 * requests). FUZZ_SEED and FUZZ_COUNT replay a campaign.
 */
import { describe, it } from 'vitest';
import { campaign } from './campaign.js';

const SEED = Number(process.env['FUZZ_SEED'] ?? 0x5eed2);
const COUNT = Number(process.env['FUZZ_COUNT'] ?? 10_000);

describe('HTTP fuzzing, part 2', () => {
  it(`${COUNT} malformed requests (seed ${SEED}): 4xx envelopes only, no state change`, { timeout: 240_000 }, () => campaign(SEED, COUNT));
});
