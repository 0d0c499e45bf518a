/**
 * `trigger`: runs a scenario of pix-usdt/testing (the same scripts a partner's tests call)
 * against the server, or a scenario file; prints each resource or step as it happens.
 * @module
 */
import { readFile, stat } from 'node:fs/promises';
import { SCENARIO_FILE_LIMITS, ScenarioError, ScenarioFileError, TRIGGERS, runScenarioFile, runTrigger as runScenario, type ScenarioStep, type TriggerScenario } from '../../testing/index.js';
import type { TriggerOptions } from '../commands/trigger.js';
import { EXIT, type Io, clientOf, fail, print, report } from './io.js';

type RunOptions = Extract<TriggerOptions, { list: false }>;

/** Runs `trigger`. */
export async function runTrigger(options: TriggerOptions, io: Io): Promise<number> {
  if (options.list) {
    for (const [name, scenario] of Object.entries(TRIGGERS as Record<string, TriggerScenario>)) {
      print(io, options, { scenario: name, summary: scenario.summary, directions: scenario.directions, reasons: scenario.reasons ?? [] }, `${name.padEnd(26)}${scenario.summary}`);
    }
    return EXIT.ok;
  }
  if (options.file !== undefined) return runFile(options as Extract<RunOptions, { file: string }>, io);
  const named = options as Exclude<RunOptions, { file: string }>;
  const created: ScenarioStep[] = [];
  const onStep = (step: ScenarioStep): void => {
    created.push(step);
    if (!named.json) io.stdout(`${step.object.padEnd(11)}${step.id}  ${step.detail}`);
  };
  try {
    const outcome = await runScenario(clientOf(named), named.scenario, {
      onStep,
      direction: named.direction,
      ...(named.user === undefined ? {} : { userId: named.user }),
      ...(named.amount === undefined ? {} : { amount: named.amount }),
      ...(named.reason === undefined ? {} : { reason: named.reason }),
    });
    const c = outcome.conversion;
    print(
      io,
      named,
      {
        scenario: named.scenario,
        ok: true,
        created,
        conversion: c === null ? null : { id: c.id, status: c.status, standby_reason: c.standby_reason, failure_reason: c.failure_reason },
        events: outcome.events?.map((e) => ({ id: e.id, type: e.type, object_id: e.data.object['id'] ?? null })) ?? null,
      },
      `${named.scenario}: done${outcome.events === null ? '' : ` (events: ${outcome.events.map((e) => e.type).join(', ') || 'none'})`}`,
    );
    return EXIT.ok;
  } catch (error) {
    const done = { scenario: named.scenario, created };
    if (error instanceof ScenarioError) {
      const text = `pix-usdt-sandbox: trigger ${named.scenario}: ${error.message}`;
      return report(io, named, { exit: EXIT.failure, text, failure: { code: 'scenario_failed', message: error.message } }, done);
    }
    return fail(io, named, error, `trigger ${named.scenario}`, done);
  }
}

/** `trigger --file`: the file's steps, one line each; the result as one JSON object with `--json`. */
async function runFile(options: Extract<RunOptions, { file: string }>, io: Io): Promise<number> {
  let text: string;
  try {
    // The kit's limit, in bytes (at most 4 per character): a larger file is refused before it is read.
    const { size } = await stat(options.file);
    if (size > SCENARIO_FILE_LIMITS.chars * 4) {
      io.stderr(`pix-usdt-sandbox: trigger --file: ${options.file} is too large: at most ${SCENARIO_FILE_LIMITS.chars} characters of JSON; it has ${size} bytes. Nothing ran.`);
      return EXIT.usage;
    }
    text = await readFile(options.file, 'utf8');
  } catch (error) {
    const message = `cannot read ${options.file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
    return report(io, options, { exit: EXIT.usage, text: `pix-usdt-sandbox: trigger --file: ${message}.`, failure: { code: 'file_unreadable', message } }, { file: options.file });
  }
  try {
    const result = await runScenarioFile(text, {
      client: clientOf(options),
      source: options.file,
      throwOnFailure: false,
      onStep(step) {
        if (options.json) return;
        const id = idOf(step.answer);
        io.stdout(`step ${String(step.index).padEnd(3)}${(step.id ?? '').padEnd(14)}${step.summary.padEnd(48)}${step.ok ? 'ok' : 'FAILED'}${id === '' ? '' : `  ${id}`}`);
      },
    });
    const failure = result.ok ? {} : { error: { code: 'step_failed', message: result.failure ?? 'a step failed' } };
    if (options.json) print(io, options, { file: options.file, ...result, ...failure }, '');
    else if (result.ok) io.stdout(`${result.name ?? options.file}: ${result.steps.length} steps, done`);
    if (!result.ok) io.stderr(`pix-usdt-sandbox: trigger --file ${options.file}: ${result.failure ?? ''}`);
    return result.ok ? EXIT.ok : EXIT.failure;
  } catch (error) {
    if (error instanceof ScenarioFileError) {
      // Not a valid file: nothing ran.
      const failure = { code: 'invalid_scenario_file', message: error.message };
      return report(io, options, { exit: EXIT.usage, text: `pix-usdt-sandbox: trigger --file: ${error.message}`, failure }, { file: options.file, issues: error.issues });
    }
    return fail(io, options, error, `trigger --file ${options.file}`, { file: options.file });
  }
}

/** The id a step's answer shows: its own, or its conversion's or user's (a scenario step). */
function idOf(answer: unknown): string {
  if (answer === null || typeof answer !== 'object') return '';
  const a = answer as { id?: unknown; conversion?: { id?: unknown }; user?: { id?: unknown } };
  const id = a.id ?? a.conversion?.id ?? a.user?.id;
  return typeof id === 'string' ? id : '';
}
