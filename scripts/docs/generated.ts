/**
 * The generated files (docs/state-machines.md, docs/openapi.json, docs/scenario-file.schema.json) and how each is made. Shared by the CLI (scripts/generate-docs.ts) and
 * the freshness test (test/docs), so both compare the same bytes.
 * @module
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenApi, type DocumentedRoute } from './openapi.js';
import { renderStateMachines } from './state-machines.js';
import { scenarioFileJsonSchema } from '../../src/testing/file-schema.js';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One generated file: its path from the repository root and its content. */
export interface GeneratedFile {
  path: string;
  content: string;
}

/**
 * The sandbox's routes. Imported lazily so that a route file in the middle of an edit gives a
 * clear message instead of a stack trace from deep inside the import graph.
 */
export async function loadRoutes(): Promise<readonly DocumentedRoute[]> {
  try {
    const { ALL_ROUTES } = await import('../../src/sandbox/routes.js');
    return ALL_ROUTES;
  } catch (error) {
    throw new Error(
      `Cannot load the sandbox routes (src/sandbox/routes.ts, ALL_ROUTES), the source of docs/openapi.json: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('package.json', `file://${ROOT}`), 'utf8')) as { version: string };
  return pkg.version;
}

/** Every generated file, as it should be committed. */
export async function generateAll(): Promise<GeneratedFile[]> {
  const routes = await loadRoutes();
  return [
    { path: 'docs/state-machines.md', content: renderStateMachines() },
    { path: 'docs/openapi.json', content: renderOpenApi(routes, { version: packageVersion() }) },
    // The scenario file format of pix-usdt/testing and `trigger --file`, from its zod schema.
    { path: 'docs/scenario-file.schema.json', content: `${JSON.stringify(scenarioFileJsonSchema(), null, 2)}\n` },
  ];
}
