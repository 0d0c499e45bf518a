/**
 * `pix-usdt/parity`: proves a deployment of the API against the reference. A conformance
 * runner of short scenarios over the public client (against the platform's sandbox, the bundled
 * sandbox, or anything that speaks the API), and record/replay of real traffic.
 *
 * ```ts
 * import { runConformance, formatTable } from 'pix-usdt/parity';
 * const report = await runConformance({ baseUrl: 'https://sandbox.example.com', apiKey: process.env.KEY! });
 * console.log(formatTable(report));
 * process.exitCode = report.ok ? 0 : 1;
 * ```
 *
 * It imports only the client and the webhooks entries, never the sandbox. It publishes what
 * docs/parity.md shows a partner calling and the types of what those calls take and give; the
 * scenario library's machinery (its context, the comparison rules, the reference's field tables,
 * the check digits) and the command line's runner stay inside (docs/decisions.md, "Parity").
 * @module
 */
import { SCENARIOS as SCRIPTS } from './scenarios/index.js';
import type { Scenario } from './types.js';

export { runConformance, ConformanceOptionsError } from './runner.js';
export { formatTable, formatJson, formatJunit } from './report.js';
export { pacedFetch } from './pacing.js';
export {
  recordingFetch,
  replayFetch,
  diffCassette,
  UnrecordedRequestError,
  type Cassette,
  type Exchange,
  type RecordingFetch,
  type RecordingOptions,
  type ReplayFetch,
  type CassetteDiff,
  type ExchangeDiff,
  type DiffCassetteOptions,
} from './cassette.js';
export type { RedactOptions } from './redact.js';
export type { Difference } from './compare.js';
export { DEFAULT_PIX_FIXTURES, type PixFixtures } from './reference.js';
export type {
  Check,
  CheckLevel,
  Verdict,
  Scenario,
  ScenarioResult,
  ConformanceReport,
  ConformanceTenant,
  ConformanceOptions,
  ReceivedWebhook,
  PacingOptions,
} from './types.js';

/**
 * The scenario library, in run order: each scenario's id (what the `scenarios` option and
 * `--scenario` select), its title and the reference's promises it checks (docs/parity.md,
 * "The scenarios").
 */
export const SCENARIOS: readonly Scenario[] = SCRIPTS;
