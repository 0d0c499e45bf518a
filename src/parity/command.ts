/**
 * The `conformance` command's logic, without a CLI library or Node built-ins: parsed options
 * in, text to an output sink, an exit code back. The CLI wires it to argv and the file system.
 * @module
 */
import type { FetchLike } from '../index.js';
import { formatJson, formatJunit, formatTable } from './report.js';
import { ConformanceOptionsError, runConformance } from './runner.js';
import type { ReceivedWebhook, PacingOptions } from './types.js';

/** Parsed options of `pix-usdt-sandbox conformance`. */
export interface ConformanceCommandOptions {
  /** `--url` (or its older name `--base-url`). */
  baseUrl: string;
  /** `--api-key`. */
  apiKey: string;
  /** `--receiver-url`. */
  receiverUrl?: string | undefined;
  /** `--json`: the report as JSON on stdout instead of the table. */
  json?: boolean | undefined;
  /** `--junit FILE`: also write JUnit XML there. */
  junit?: string | undefined;
  /** `--scenario` (repeatable). */
  scenarios?: readonly string[] | undefined;
  /** `--rate-limit`: also exhaust the quote limit to observe the 429. */
  exerciseRateLimit?: boolean | undefined;
  /** `--no-pacing` (a local sandbox). */
  pacing?: PacingOptions | false | undefined;
  /** What a local receiver got (the CLI's listener), when the CLI runs one. */
  received?: (() => ReceivedWebhook[] | Promise<ReceivedWebhook[]>) | undefined;
  /** The fetch (tests). */
  fetch?: FetchLike | undefined;
  /** `--key-tenant`: `'key'`, run in the API key's tenant; default `'own'`, a tenant made for the run where the deployment can make one. */
  tenant?: 'own' | 'key' | undefined;
}

/** Where the command writes. */
export interface CommandOutput {
  /** Results (the table, or JSON). */
  stdout(text: string): void;
  /** Progress and errors. */
  stderr(text: string): void;
  /** Writes a file (the JUnit report). */
  writeFile(path: string, text: string): Promise<void> | void;
}

/**
 * Runs `conformance`: 0 when every promise of the reference holds, 1 when one differs or a
 * scenario could not finish, 2 on unusable options (a live key, a bad URL) before any request.
 */
export async function runConformanceCommand(options: ConformanceCommandOptions, out: CommandOutput): Promise<number> {
  try {
    const report = await runConformance({
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.receiverUrl === undefined ? {} : { receiverUrl: options.receiverUrl }),
      ...(options.received === undefined ? {} : { received: options.received }),
      ...(options.scenarios === undefined ? {} : { scenarios: options.scenarios }),
      ...(options.pacing === undefined ? {} : { pacing: options.pacing }),
      exerciseRateLimit: options.exerciseRateLimit === true,
      ...(options.tenant === undefined ? {} : { tenant: options.tenant }),
      onProgress: (r, i, total) => out.stderr(`[${i + 1}/${total}] ${r.verdict.padEnd(7)} ${r.id}${r.reason === undefined ? '' : ` (${r.reason})`}\n`),
    });
    out.stdout(options.json === true ? formatJson(report) : formatTable(report));
    if (options.junit !== undefined) await out.writeFile(options.junit, formatJunit(report));
    return report.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof ConformanceOptionsError) {
      out.stderr(`conformance: ${error.message}\n`);
      // With --json, stdout carries the failure too: the one document a script reads.
      if (options.json === true) out.stdout(`${JSON.stringify({ ok: false, error: { code: 'usage_error', message: error.message } })}\n`);
      return 2;
    }
    throw error;
  }
}
