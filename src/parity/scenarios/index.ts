/** The scenario library, in run order (the rate-limit burst last: it leaves the quote budget spent). */
import type { ScenarioScript } from '../context.js';
import { LIFECYCLE_SCENARIOS } from './lifecycle.js';
import { PROTOCOL_SCENARIOS } from './protocol.js';
import { QUOTE_SCENARIOS } from './quotes.js';
import { USER_SCENARIOS } from './users.js';
import { WEBHOOK_SCENARIOS } from './webhooks.js';

/** Every scenario of the library, in run order. */
export const SCENARIOS: readonly ScenarioScript[] = [
  ...PROTOCOL_SCENARIOS.filter((s) => s.needsRateLimit !== true),
  ...USER_SCENARIOS,
  ...QUOTE_SCENARIOS,
  ...LIFECYCLE_SCENARIOS,
  ...WEBHOOK_SCENARIOS,
  ...PROTOCOL_SCENARIOS.filter((s) => s.needsRateLimit === true),
];
