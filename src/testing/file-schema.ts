/**
 * The scenario file format: one zod schema per step kind, and the file. The published JSON
 * Schema (docs/scenario-file.schema.json) is generated from these (`scenarioFileJsonSchema`), and
 * a test keeps the committed file equal to it.
 * @module
 */
import * as z from 'zod/mini';
import { EVENT_TYPES } from '../models/index.js';

/** At most this many steps in a scenario file. */
export const MAX_SCENARIO_STEPS = 500;
/** The longest `advance` of one step, in seconds: 365 days. */
export const MAX_ADVANCE_SECONDS = 365 * 86_400;
/** The deepest nesting of arrays and objects in a scenario file (its `params` and `fields` included). */
export const MAX_SCENARIO_DEPTH = 32;
/** The largest scenario file, in characters of JSON (1 MB; `trigger --file` reads at most as many bytes). */
export const MAX_SCENARIO_FILE_CHARS = 1_000_000;

/**
 * The limits of a scenario file: one fact for `runScenarioFile`, `pix-usdt-sandbox trigger
 * --file` and the published JSON Schema (docs/scenario-file.schema.json). A file past any of
 * them is refused whole, before any step runs.
 */
export const SCENARIO_FILE_LIMITS: Readonly<{
  /** Steps in a file. */
  steps: number;
  /** Seconds of one `advance` step (365 days). */
  advanceSeconds: number;
  /** Levels of nested arrays and objects, the file itself being the first. */
  depth: number;
  /** Characters of JSON. */
  chars: number;
}> = Object.freeze({ steps: MAX_SCENARIO_STEPS, advanceSeconds: MAX_ADVANCE_SECONDS, depth: MAX_SCENARIO_DEPTH, chars: MAX_SCENARIO_FILE_CHARS });

/** An id a later step references its answer by: `${id.field}`. */
const StepId = z.string().check(
  z.regex(/^[A-Za-z_][A-Za-z0-9_-]*$/, 'Expected a name of letters, digits, _ and - (starting with a letter or _), e.g. user or conversion_1'),
  z.maxLength(64),
  z.describe('Names the step, so that later steps can reference its answer: "${id.field}".'),
);

/** A JSON object of request fields; any string in it may reference an earlier answer. */
const Params = z.record(z.string(), z.unknown()).check(z.describe('The request body (create, helper) or the builder options (scenario); strings may hold "${step.path}" references.'));

/** A string that may be or hold a reference, e.g. `${conversion.id}`. */
const Target = z.string().check(z.minLength(1), z.describe('The id the call acts on, usually a reference such as "${conversion.id}".'));

const ExpectError = z.string().check(
  z.regex(/^[a-z_]+$/, 'Expected an error code such as quote_expired'),
  z.describe('The step must fail with this API error code (e.g. quote_expired); its answer is then the error envelope.'),
);

/** What each kind of step may create, call or drive, and the client method behind it. */
export const CREATE_KINDS = ['user', 'quote', 'conversion', 'transaction', 'webhook_endpoint'] as const;
export const HELPERS = [
  'users.kyc',
  'conversions.simulate_onramp_pix_paid',
  'conversions.simulate_offramp_deposit',
  'conversions.deposit',
  'conversions.expire',
  'conversions.fail',
  'conversions.fail_pix',
  'conversions.fail_crypto',
  'transactions.pay',
] as const;
export const CALLS = [
  'users.retrieve',
  'users.wallet',
  'quotes.retrieve',
  'conversions.retrieve',
  'conversions.cancel',
  'conversions.liquidate',
  'transactions.retrieve',
] as const;
export const SCENARIO_KINDS = ['user', 'conversion'] as const;
export const RESOURCES = ['user', 'quote', 'conversion', 'transaction'] as const;

/** A step that calls the API: its kind's own fields, an optional `id` and `expect_error`. */
function apiStep<T extends Record<string, z.core.SomeType>>(shape: T) {
  return z.strictObject({ id: z.optional(StepId), ...shape, expect_error: z.optional(ExpectError) });
}

/** `create`: a user, a quote, a conversion (accepts `params.quote_id`), a transaction or a webhook endpoint. */
export const CreateStep = apiStep({
  create: z.enum(CREATE_KINDS).check(z.describe('What to create. "conversion" accepts the quote named by params.quote_id.')),
  params: z.optional(Params),
});

/** `scenario`: a builder of pix-usdt/testing (an approved user; a conversion in any state). */
export const ScenarioStepSchema = apiStep({
  scenario: z.enum(SCENARIO_KINDS).check(
    z.describe('A scenario builder: "user" (params.kyc, default approved) or "conversion" (params.status, reason, direction, amount, user_id). Its answer holds user, quote and conversion.'),
  ),
  params: z.optional(Params),
});

/** `helper`: a sandbox test helper on `target`. */
export const HelperStep = apiStep({
  helper: z.enum(HELPERS).check(z.describe('A test helper of /v1/test_helpers (client.testHelpers.*), named resource.method in snake_case.')),
  target: Target,
  params: z.optional(Params),
});

/** `call`: a partner call on `target` (retrieve, cancel, liquidate, a wallet). */
export const CallStep = apiStep({
  call: z.enum(CALLS).check(z.describe('A partner call on target: resource.method.')),
  target: Target,
});

/** The seconds of an `advance`: the sum of its units (with `largest`, the largest unit alone). */
export function advanceSeconds(advance: { seconds?: number | undefined; minutes?: number | undefined; hours?: number | undefined; days?: number | undefined }, largest = false): number {
  const parts = [advance.seconds ?? 0, (advance.minutes ?? 0) * 60, (advance.hours ?? 0) * 3600, (advance.days ?? 0) * 86_400];
  return largest ? Math.max(...parts) : parts.reduce((a, b) => a + b, 0);
}

/** `advance`: the tenant's clock moves on; timers due in the span fire in order. */
export const AdvanceStep = z.strictObject({
  id: z.optional(StepId),
  advance: z
    .strictObject({
      seconds: z.optional(z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS))),
      minutes: z.optional(z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS / 60))),
      hours: z.optional(z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS / 3600))),
      days: z.optional(z.number().check(z.gte(0), z.lte(MAX_ADVANCE_SECONDS / 86_400))),
    })
    .check(
      // The sum, once each unit is within its own bound (a unit past it is named alone).
      z.refine((a) => advanceSeconds(a) <= MAX_ADVANCE_SECONDS || advanceSeconds(a, true) > MAX_ADVANCE_SECONDS, `At most 365 days (${MAX_ADVANCE_SECONDS} seconds) in all`),
      z.describe('How far: the sum of the units given, at most 365 days.'),
    ),
});

const Fields = z.record(z.string(), z.unknown()).check(z.describe('Fields the object must have, with these values (others are not compared); values may be references.'));

/** `expect`: an object's fields (read again now), or an event of the tenant's log. */
export const ExpectStep = z.strictObject({
  id: z.optional(StepId),
  expect: z.union([
    z.strictObject({
      user: z.optional(Target),
      quote: z.optional(Target),
      conversion: z.optional(Target),
      transaction: z.optional(Target),
      fields: Fields,
    }),
    z.strictObject({
      event: z.enum(EVENT_TYPES).check(z.describe('An event of this type must be in the tenant\'s log (GET /v1/test_helpers/events).')),
      object_id: z.optional(Target),
    }),
  ]),
});

/** Step kinds, by the key that names them. */
export const STEP_KINDS = {
  create: CreateStep,
  scenario: ScenarioStepSchema,
  helper: HelperStep,
  call: CallStep,
  advance: AdvanceStep,
  expect: ExpectStep,
} as const;

/** A kind of step: the key that names it. */
export type StepKind = keyof typeof STEP_KINDS;

/** One step of a scenario file. */
export type ScenarioFileStep =
  | z.infer<typeof CreateStep>
  | z.infer<typeof ScenarioStepSchema>
  | z.infer<typeof HelperStep>
  | z.infer<typeof CallStep>
  | z.infer<typeof AdvanceStep>
  | z.infer<typeof ExpectStep>;

/** The file: a name, what it shows, and its steps. */
export const ScenarioFileSchema = z
  .strictObject({
    $schema: z.optional(z.string()),
    name: z.optional(z.string().check(z.maxLength(200))),
    description: z.optional(z.string().check(z.maxLength(2000))),
    steps: z.array(z.union([CreateStep, ScenarioStepSchema, HelperStep, CallStep, AdvanceStep, ExpectStep])).check(z.minLength(1), z.maxLength(MAX_SCENARIO_STEPS)),
  })
  .check(
    z.meta({
      title: 'pix-usdt scenario file',
      description:
        `Steps run in order against a sandbox (pix-usdt-sandbox trigger --file, or runScenarioFile from pix-usdt/testing). A string "\${id.path}" is the value at path of the answer of the earlier step named id. A whole file is checked before any step runs: at most ${MAX_SCENARIO_STEPS} steps, ${MAX_SCENARIO_FILE_CHARS} characters and ${MAX_SCENARIO_DEPTH} levels of nested arrays and objects; a file that is not valid runs nothing.`,
    }),
  );

/** A scenario file, parsed. */
export type ScenarioFile = z.infer<typeof ScenarioFileSchema>;

/** The JSON Schema of a scenario file (published as docs/scenario-file.schema.json). */
export function scenarioFileJsonSchema(): Record<string, unknown> {
  return { ...z.toJSONSchema(ScenarioFileSchema), $id: 'https://github.com/pix-usdt/pix-usdt/blob/main/docs/scenario-file.schema.json' };
}
