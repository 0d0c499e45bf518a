/**
 * `conformance`: the runner of src/server/conformance.ts.
 * @module
 */
import type { ConformanceOptions } from '../commands/conformance.js';
import { conformanceMain } from '../conformance.js';
import { terminalWidth } from '../cli/help.js';
import type { Io } from './io.js';

/** Runs `conformance` with its own argument words. */
export function runConformance(options: ConformanceOptions, _io: Io): Promise<number> {
  return conformanceMain(options.argv, {
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    env: process.env,
    helpWidth: terminalWidth(),
  });
}
