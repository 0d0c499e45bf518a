/**
 * `pix-usdt/testing`: the kit for a partner's test suite. A sandbox per test with a frozen clock
 * and its client (`createTestSandbox`); scenario builders that bring a user or a conversion to any
 * state through the public client and its test helpers, against any deployment (the same scripts
 * as `pix-usdt-sandbox trigger`); scenario files (`runScenarioFile`); matchers for vitest and Jest.
 *
 * ```ts
 * import { expect } from 'vitest';
 * import { createConversion, createTestSandbox, matchers } from 'pix-usdt/testing';
 * expect.extend(matchers);
 *
 * await using sandbox = createTestSandbox();
 * const { conversion } = await createConversion(sandbox.client, { status: 'standby', reason: 'under_funded' });
 * expect(conversion).toHaveConversionStatus('standby', 'under_funded');
 * ```
 * @module
 */
export { createTestSandbox, type DisposableSandbox, type TestSandbox, type TestSandboxOptions } from './sandbox.js';
export {
  approvedUser,
  createConversion,
  createUser,
  quoteRequest,
  OFFRAMP_ONLY_STANDBY_REASONS,
  SCENARIO_WALLET_ADDRESS,
  ScenarioError,
  type ConversionGoal,
  type ConversionScenario,
  type ConversionScenarioOptions,
  type Direction,
  type KycOutcome,
  type ScenarioOptions,
  type ScenarioRecord,
  type ScenarioStep,
  type UserScenario,
  type UserScenarioOptions,
} from './scenarios.js';
export { TRIGGERS, isTriggerName, resolveTrigger, runTrigger, type TriggerName, type TriggerOptions, type TriggerOutcome, type TriggerScenario } from './triggers.js';
export {
  parseScenarioFile,
  runScenarioFile,
  ScenarioFileError,
  type RunScenarioFileOptions,
  type ScenarioFileIssue,
  type ScenarioFileResult,
  type ScenarioFileStepResult,
} from './file.js';
export { SCENARIO_FILE_LIMITS, scenarioFileJsonSchema, type ScenarioFile, type ScenarioFileStep, type StepKind } from './file-schema.js';
export { matchers, type EventSource, type MatcherContext, type MatcherResult, type PixUsdtMatchers, type WebhookRequestLike } from './matchers.js';
