/**
 * Scenario files: the published JSON Schema and the zod schema agree; a bad file is refused with
 * every issue named by its step; a failing step says which and why; and each example of
 * examples/scenarios/ gives the same result from code (runScenarioFile, in process) and from the
 * CLI (trigger --file, against a server).
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCENARIO_FILE_LIMITS, ScenarioFileError, createTestSandbox, parseScenarioFile, runScenarioFile, scenarioFileJsonSchema, type ScenarioFileResult } from '../../src/testing/index.js';
import { cpf } from '../support/fixtures.js';
import { type Ready, exitCode, run, serve, stopAll } from '../server/helpers.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const EXAMPLES = join(ROOT, 'examples/scenarios');
const examples = readdirSync(EXAMPLES).filter((f) => f.endsWith('.json')).sort();
const published = JSON.parse(readFileSync(join(ROOT, 'docs/scenario-file.schema.json'), 'utf8')) as Record<string, unknown>;
const validate = new Ajv2020({ strict: false }).compile(published);

/** What both runs must agree on: every step's outcome and the status its answer shows. */
function outcome(result: ScenarioFileResult): unknown {
  return {
    name: result.name,
    ok: result.ok,
    failure: result.failure?.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>') ?? null,
    steps: result.steps.map((s) => {
      const answer = (s.answer ?? {}) as Record<string, unknown>;
      const inner = (answer['conversion'] ?? answer['user'] ?? answer) as Record<string, unknown>;
      return [s.index, s.id, s.kind, s.summary, s.ok, inner['status'] ?? inner['kyc_status'] ?? answer['code'] ?? null];
    }),
  };
}

describe('the scenario file format', () => {
  it('is published as the JSON Schema of the zod schema', () => {
    expect(published).toEqual(scenarioFileJsonSchema());
  });

  it('ships three examples, each valid for both schemas', () => {
    expect(examples.length).toBe(3);
    for (const file of examples) {
      const data = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8')) as unknown;
      expect(validate(data), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(() => parseScenarioFile(data, file)).not.toThrow();
    }
  });

  it.each([
    [{ steps: [] }, 'file: steps: A scenario file is an object with "steps": a non-empty array of steps.'],
    [{ steps: [{ id: 'u' }] }, 'step 1 ("u"): names no kind: give one of create, scenario, helper, call, advance, expect'],
    [{ steps: [{ create: 'user', helper: 'users.kyc', target: 'x' }] }, 'step 1: names create and helper: one kind per step'],
    [{ steps: [{ create: 'wallet' }] }, 'step 1: create: Expected one of "user", "quote", "conversion", "transaction", "webhook_endpoint", received "wallet"'],
    [{ steps: [{ id: 'q', create: 'quote', params: { user_id: '${usr.id}' } }] }, 'step 1 ("q"): ${usr...} names no earlier step (no step before it has an id)'],
    [{ steps: [{ id: 'u', create: 'user' }, { helper: 'users.kyc', target: '${user.id}' }] }, 'step 2: ${user...} names no earlier step (earlier steps: u)'],
    [{ steps: [{ advance: { weeks: 1 } }] }, 'step 1: advance: Unknown field "weeks": remove it'],
    [{ steps: [{ create: 'user' }], extra: 1 }, 'file: Unknown field "extra": remove it'],
    [{ steps: [{ helper: 'users.kyc' }] }, 'step 1: target: Expected a string, received nothing (the field is missing)'],
    [{ steps: [{ id: 'a', create: 'user' }, { id: 'a', create: 'user' }] }, 'step 2 ("a"): id: "a" is the id of an earlier step too'],
    // The published limits (issue 35): they were in the JSON Schema, and not enforced.
    [{ steps: [{ create: 'user' }, { advance: { days: 36_500 } }] }, 'step 2: advance.days: Expected a number <= 365, received the number 36500'],
    [{ steps: [{ advance: { days: 200, hours: 4_000 } }] }, 'step 1: advance: At most 365 days (31536000 seconds) in all'],
    [{ steps: Array.from({ length: 1_500 }, () => ({ create: 'user' })) }, 'file: steps: At most 500 steps; this file has 1500'],
  ])('refuses %j, naming the step, and so does the JSON Schema', (file, line) => {
    const error = (() => {
      try {
        parseScenarioFile(file, 'bad.json');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ScenarioFileError);
    expect((error as Error).message).toBe(`bad.json is not a valid scenario file (docs/scenario-file.schema.json):\n  ${line}`);
    // References, duplicate ids and the sum of an advance's units are beyond JSON Schema; everything else it refuses too.
    if (!/names no earlier step|earlier step too|in all$/.test(line)) expect(validate(file)).toBe(false);
  });

  it('refuses text that is not JSON', () => {
    expect(() => parseScenarioFile('{ steps: ', 'x.json')).toThrow(/^x\.json is not JSON: /);
  });

  it('refuses a file nested too deep or too large with a ScenarioFileError, never a stack overflow, as text and as a value', () => {
    const deepText = `{"steps":[{"create":"user","params":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}]}`;
    let deepValue: Record<string, unknown> = {};
    const root = { steps: [{ create: 'user', params: deepValue }] };
    for (let i = 0; i < 50_000; i++) deepValue = deepValue['a'] = {};
    for (const file of [deepText, root]) {
      const error = (() => {
        try {
          parseScenarioFile(file, 'deep.json');
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(ScenarioFileError);
      expect((error as ScenarioFileError).issues).toEqual([{ step: null, path: `steps.0.params${'.a'.repeat(29)}`, message: `Nested deeper than ${SCENARIO_FILE_LIMITS.depth} levels of arrays and objects` }]);
    }
    const large = { steps: [{ create: 'user', params: { name: 'x'.repeat(SCENARIO_FILE_LIMITS.chars) } }] };
    expect(() => parseScenarioFile(large, 'large.json')).toThrow(`large.json is too large: at most ${SCENARIO_FILE_LIMITS.chars} characters of JSON`);
    expect(() => parseScenarioFile(JSON.stringify(large), 'large.json')).toThrow(`large.json is too large: at most ${SCENARIO_FILE_LIMITS.chars} characters of JSON`);
  });

  it('a file past a limit runs nothing: not the steps before the one at fault', async () => {
    await using sandbox = createTestSandbox();
    for (const file of [{ steps: [{ create: 'user', params: { external_id: 'e1', name: 'Ana', document_type: 'cpf', document_number: cpf(1) } }, { advance: { days: 36_500 } }] }, { steps: Array.from({ length: 1_500 }, (_, i) => ({ create: 'user', params: { external_id: `e${i}`, name: 'Ana', document_type: 'cpf', document_number: cpf(i + 1) } })) }]) {
      await expect(runScenarioFile(file, { client: sandbox.client })).rejects.toBeInstanceOf(ScenarioFileError);
    }
    expect((await sandbox.client.users.list()).data).toEqual([]);
  });

  it('publishes its limits in the JSON Schema', () => {
    const text = JSON.stringify(published);
    expect(text).toContain(`"maxItems":${SCENARIO_FILE_LIMITS.steps}`);
    expect(text).toContain(`"maximum":${SCENARIO_FILE_LIMITS.advanceSeconds}`);
    expect(published['description']).toContain(`at most ${SCENARIO_FILE_LIMITS.steps} steps, ${SCENARIO_FILE_LIMITS.chars} characters and ${SCENARIO_FILE_LIMITS.depth} levels`);
  });
});

describe('runScenarioFile', () => {
  it('stops at the first failing step and names it, with what was there', async () => {
    await using sandbox = createTestSandbox({ now: '2026-03-01T12:00:00Z' });
    const file = {
      steps: [
        { id: 'c', scenario: 'conversion', params: { status: 'expired' } },
        { expect: { conversion: '${c.conversion.id}', fields: { status: 'completed', expected_source_amount: '100.00' } } },
        { advance: { days: 1 } },
      ],
    };
    const error = await runScenarioFile(file, { client: sandbox.client, source: 'expired.json' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ScenarioFileError);
    const id = (error as ScenarioFileError).result?.steps[0]?.answer as { conversion: { id: string } };
    expect((error as Error).message).toBe(`expired.json: step 2, expect conversion status=completed expected_source_amount=100.00: conversion ${id.conversion.id}: status is "expired", not "completed"`);
    expect((error as ScenarioFileError).result?.steps.map((s) => s.ok)).toEqual([true, false]);
  });

  it('says what a reference lacks, which error came instead of the expected one, and when a call succeeded that should not', async () => {
    await using sandbox = createTestSandbox({ now: '2026-03-01T12:00:00Z' });
    const run = (steps: unknown[]): Promise<ScenarioFileResult> => runScenarioFile({ steps }, { client: sandbox.client, throwOnFailure: false });
    const u = [{ id: 'u', scenario: 'user' }];
    expect((await run([...u, { helper: 'users.kyc', target: '${u.user.nope}', params: { status: 'approved' } }])).failure).toMatch(
      /^step 2, helper users\.kyc: \$\{u\.user\.nope\} in step 2: u\.user has no "nope" \(it has: id, external_id, /,
    );
    expect((await run([...u, { call: 'users.retrieve', target: '${u.user.id}', expect_error: 'user_not_found' }])).failure).toBe('step 2, call users.retrieve (expect_error user_not_found): expected the error user_not_found, but the call succeeded');
    const other = await run([{ call: 'conversions.cancel', target: '00000000-0000-4000-8000-000000000000', expect_error: 'quote_expired' }]);
    expect(other.failure).toMatch(/^step 1, call conversions\.cancel \(expect_error quote_expired\): expected the error quote_expired, got 404 conversion_not_found: .*\(request req_[0-9a-f]+\)$/);
    await using empty = createTestSandbox();
    const none = await runScenarioFile({ steps: [{ expect: { event: 'conversion.completed' } }] }, { client: empty.client, throwOnFailure: false });
    expect(none.failure).toBe("step 1, expect event conversion.completed: no conversion.completed event in the tenant's log; the latest: none");
    const some = await run([{ expect: { event: 'conversion.completed' } }]);
    expect(some.failure).toMatch(/; the latest: user\.kyc_approved \([0-9a-f-]{36}\), user\.kyc_pending \([0-9a-f-]{36}\)/);
  });
});

describe('the examples from code and from the CLI', () => {
  let ready: Ready;

  beforeAll(async () => {
    ({ ready } = await serve());
  });
  afterAll(stopAll);

  it.each(examples)('%s: the same result both ways', async (file) => {
    const text = readFileSync(join(EXAMPLES, file), 'utf8');
    await using sandbox = createTestSandbox();
    const fromCode = await runScenarioFile(text, { client: sandbox.client, source: file });
    expect(fromCode.ok).toBe(true);
    // A tenant of its own on the server, as the in-process sandbox is.
    const tenant = (await (await fetch(`${ready.url}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { api_key: string };
    const child = run(['trigger', '--file', join(EXAMPLES, file), '--json'], { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: tenant.api_key });
    expect(await exitCode(child), child.stderr()).toBe(0);
    const fromCli = JSON.parse(child.stdout()) as ScenarioFileResult & { file: string };
    expect(fromCli.file).toBe(join(EXAMPLES, file));
    expect(outcome(fromCli)).toEqual(outcome(fromCode));
  });

  it('a failing file: exit 1, the step on stderr, the same result as from code', async () => {
    const path = join(EXAMPLES, 'quote-expires.json');
    const broken = JSON.parse(readFileSync(path, 'utf8')) as { steps: Array<Record<string, unknown>> };
    broken.steps[3] = { advance: { minutes: 1 } };
    const dir = mkdtempSync(join(tmpdir(), 'pix-usdt-scenario-'));
    try {
      const file = join(dir, 'broken.json');
      writeFileSync(file, JSON.stringify(broken));
      await using sandbox = createTestSandbox();
      const fromCode = await runScenarioFile(broken, { client: sandbox.client, throwOnFailure: false });
      const invalid = join(dir, 'invalid.json');
      writeFileSync(invalid, JSON.stringify({ steps: [{ create: 'wallet' }] }));
      // Valid step by step, past the advance limit as a whole: the user of step 1 is never created (issue 35).
      const tooFar = join(dir, 'too-far.json');
      writeFileSync(tooFar, JSON.stringify({ steps: [{ create: 'user', params: { external_id: 'far', name: 'Ana', document_type: 'cpf', document_number: cpf(7) } }, { advance: { days: 36_500 } }] }));
      const own = (await (await fetch(`${ready.url}/v1/test_helpers/tenants`, { method: 'POST', headers: { authorization: `Bearer ${ready.api_key}`, 'content-type': 'application/json' }, body: '{}' })).json()) as { api_key: string };
      const env = { PIX_USDT_SANDBOX_URL: ready.url, PIX_USDT_API_KEY: ready.api_key };
      // Four processes at once: each is mostly Node's start.
      const [child, refused, missing, far] = [
        run(['trigger', '--file', file], env),
        run(['trigger', '--file', invalid], env),
        run(['trigger', '--file', join(dir, 'none.json')], env),
        run(['trigger', '--file', tooFar], { ...env, PIX_USDT_API_KEY: own.api_key }),
      ];
      expect(await exitCode(child)).toBe(1);
      expect(child.stderr()).toContain(`trigger --file ${file}: step 5 ("refused"), create conversion (expect_error quote_expired): expected the error quote_expired, but the call succeeded`);
      expect(child.stdout().split('\n')[0]).toMatch(/^step 1 +approved +scenario user +ok {2}[0-9a-f-]{36}$/);
      expect(fromCode.failure).toBe('step 5 ("refused"), create conversion (expect_error quote_expired): expected the error quote_expired, but the call succeeded');
      expect(await exitCode(refused)).toBe(2);
      expect(refused.stderr()).toContain(`${invalid} is not a valid scenario file (docs/scenario-file.schema.json):\n  step 1: create: Expected one of`);
      expect(await exitCode(missing)).toBe(2);
      expect(missing.stderr()).toContain(`cannot read ${join(dir, 'none.json')} (ENOENT)`);
      expect(await exitCode(far)).toBe(2);
      expect(far.stderr()).toContain('step 2: advance.days: Expected a number <= 365');
      const users = (await (await fetch(`${ready.url}/v1/users`, { headers: { authorization: `Bearer ${own.api_key}` } })).json()) as { data: unknown[] };
      expect(users.data).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
