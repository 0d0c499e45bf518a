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
 * It imports only the client and the webhooks entries, never the sandbox.
 * @module
 */
export { runConformance, selectScenarios, ConformanceOptionsError } from './runner.js';
export { formatTable, formatJson, formatJunit } from './report.js';
export { SCENARIOS } from './scenarios/index.js';
export { ScenarioContext, ScenarioStop, cpfFrom, cnpjFrom, type Observed, type Scenario } from './context.js';
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
export { isCpf, type RedactOptions } from './redact.js';
export { kindOf, kindMatches, diffJson, diffAnswers, checkFieldSet, formatDifferences, VALUE_FIELDS, type Difference, type FieldSetCheck, type ComparableAnswer } from './compare.js';
export {
  DEFAULT_PIX_FIXTURES,
  CATALOG_STATUS,
  USER_FIELDS,
  QUOTE_FIELDS,
  CONVERSION_FIELDS,
  KYC_VIEW_FIELDS,
  WALLET_FIELDS,
  WEBHOOK_ENDPOINT_FIELDS,
  type PixFixtures,
  type FieldSet,
  type ValueKind,
} from './reference.js';
export { runConformanceCommand, type ConformanceCommandOptions, type CommandOutput } from './command.js';
export type {
  Check,
  CheckLevel,
  Verdict,
  ScenarioResult,
  ConformanceReport,
  ConformanceOptions,
  ReceivedWebhook,
  PacingOptions,
} from './types.js';
