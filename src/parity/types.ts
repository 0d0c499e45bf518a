/**
 * The shapes of the conformance runner: scenarios, checks, results and the report.
 * @module
 */
import type { FetchLike } from '../index.js';
import type { PixFixtures } from './reference.js';

/**
 * How much a check counts.
 * - `promise`: the reference states it; a difference fails the run.
 * - `finding`: the reference says "not shown"; `expected` is the project's decision
 *   (docs/decisions.md) and a difference is reported, never failed.
 * - `note`: an observation with no expectation at all (recorded for the partner).
 */
export type CheckLevel = 'promise' | 'finding' | 'note';

/** One comparison a scenario made. */
export interface Check {
  /** What was compared, e.g. `duplicate CPF: code`. */
  name: string;
  /** How much it counts. */
  level: CheckLevel;
  /** What the reference promises (or, for a finding, what the project decided). */
  expected: string;
  /** What the service answered. */
  observed: string;
  /** Whether observed agrees with expected (always `true` for a note). */
  ok: boolean;
}

/**
 * The verdict of a scenario: `fail` when a promise differs, `error` when it could not run to
 * its end for another reason (a network failure, an unexpected answer), `finding` when only
 * "not shown" answers differ from the project's decisions, `skipped` when it needs something
 * the run was not given (a receiver URL).
 */
export type Verdict = 'pass' | 'finding' | 'fail' | 'error' | 'skipped';

/** A scenario of the library, as `SCENARIOS` lists it: its id (what `scenarios` selects) and what it checks. */
export interface Scenario {
  /** Stable id, `area.name`. */
  id: string;
  /** One line. */
  title: string;
  /** What the reference promises, in words (shown in the report). */
  promises: string;
  /** Only with a webhook receiver URL. */
  needsReceiver?: boolean;
  /** Only when `exerciseRateLimit` is set. */
  needsRateLimit?: boolean;
}

/** The outcome of one scenario. */
export interface ScenarioResult {
  /** Stable id, e.g. `users.errors`. */
  id: string;
  /** One line. */
  title: string;
  /** What the reference promises, in words. */
  promises: string;
  /** The verdict. */
  verdict: Verdict;
  /** Every check, in order. */
  checks: Check[];
  /** Wall time in ms. */
  durationMs: number;
  /** Why it errored or was skipped. */
  reason?: string;
}

/** The whole run. */
export interface ConformanceReport {
  /** The base URL that was checked. */
  baseUrl: string;
  /** The run prefix of every external id this run created. */
  runId: string;
  /** ISO time of the start. */
  startedAt: string;
  /** Wall time in ms. */
  durationMs: number;
  /** `true` when no promise differs and no scenario errored: the exit code is 0 exactly then. */
  ok: boolean;
  /** The tenant the run used: one made for it, or the API key's. */
  tenant: ConformanceTenant;
  /** How many scenarios got each verdict. */
  counts: Record<Verdict, number>;
  /** Every scenario, in run order. */
  scenarios: ScenarioResult[];
}

/** A webhook request the caller's receiver got, for the signature and sequence checks. */
export interface ReceivedWebhook {
  /** Request headers (any case). */
  headers: Record<string, string>;
  /** The raw body, exactly as received. */
  body: string;
}

/** Pacing of the requests, under the reference's limits. */
export interface PacingOptions {
  /** `POST /v1/quotes` per sliding minute (default 50, under the limit of 60). */
  quotesPerMinute?: number;
  /** Requests per second overall (default 8, under the sandbox's 10). */
  requestsPerSecond?: number;
  /** Waits (injectable for tests). */
  sleep?: (ms: number) => Promise<void>;
  /** The clock in ms (injectable for tests). */
  now?: () => number;
}

/** Options of `runConformance`. */
export interface ConformanceOptions {
  /** The API's base URL, e.g. the platform's sandbox. */
  baseUrl: string;
  /** A `sk_test_` key of that deployment (a `sk_live_` key is refused). */
  apiKey: string;
  /** The `fetch` to use (default the global one): `sandbox.fetch`, an msw-patched one, a recording one. */
  fetch?: FetchLike;
  /** An HTTPS URL that receives webhooks; without it the webhook scenario is skipped. */
  receiverUrl?: string;
  /** What the receiver at `receiverUrl` got so far; with it, signatures and the event sequence are checked. */
  received?: () => ReceivedWebhook[] | Promise<ReceivedWebhook[]>;
  /** Scenario ids (or id prefixes, `quotes.`) to run; default all. */
  scenarios?: readonly string[];
  /** Called after each scenario. */
  onProgress?: (result: ScenarioResult, index: number, total: number) => void;
  /** Prefix of every external id created (default `parity-<time>-<random>`). */
  runId?: string;
  /** Pacing; `false` turns it off (an in-process sandbox). Default on. */
  pacing?: PacingOptions | false;
  /** The sandbox Pix table's fixed keys (default the project's values). */
  pixFixtures?: PixFixtures;
  /** Also exhaust the quote rate limit to observe the 429 (61 quotes; run last). Default false. */
  exerciseRateLimit?: boolean;
  /** How long to wait for webhook deliveries, in ms (default 30,000). */
  webhookWaitMs?: number;
  /**
   * Where the run's users, conversions, webhook endpoints and clock moves go. `'own'` (the
   * default): a tenant made for the run with `POST /v1/test_helpers/tenants`, where the
   * deployment can make one (this package's sandbox and server); else, and with `'key'`, the
   * tenant of `apiKey`. The report says which ({@link ConformanceReport.tenant}).
   */
  tenant?: 'own' | 'key';
}

/** The tenant a run used. */
export interface ConformanceTenant {
  /** `true`: made for this run; `false`: the tenant of the API key, whose data the run added to. */
  made: boolean;
  /** The made tenant's id (`null`: the API key's tenant). */
  id: string | null;
  /** Why the run is in the API key's tenant when it was asked for its own (the deployment cannot make tenants). */
  note?: string;
}
