/**
 * Writes the generated docs (docs/state-machines.md, docs/openapi.json, docs/scenario-file.schema.json) from the code.
 *
 *     node --import tsx scripts/generate-docs.ts          # write them
 *     node --import tsx scripts/generate-docs.ts --check  # exit 1 when a committed file is stale
 * @module
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ROOT, generateAll } from './docs/generated.js';
import { REGENERATE_COMMAND } from './docs/notice.js';

async function current(path: string): Promise<string | null> {
  try {
    return await readFile(join(ROOT, path), 'utf8');
  } catch {
    return null;
  }
}

async function main(args: readonly string[]): Promise<number> {
  const unknown = args.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown argument ${unknown.join(' ')}. Usage: ${REGENERATE_COMMAND} [--check]\n`);
    return 2;
  }
  const check = args.includes('--check');
  const files = await generateAll();
  const stale: string[] = [];
  for (const file of files) {
    const before = await current(file.path);
    if (before === file.content) continue;
    if (check) {
      stale.push(file.path);
    } else {
      await writeFile(join(ROOT, file.path), file.content);
      process.stdout.write(`wrote ${file.path}\n`);
    }
  }
  if (check && stale.length > 0) {
    process.stderr.write(`Stale generated docs: ${stale.join(', ')}. Run \`${REGENERATE_COMMAND}\` and commit the result.\n`);
    return 1;
  }
  if (check) process.stdout.write(`Generated docs are up to date (${files.map((f) => f.path).join(', ')}).\n`);
  else process.stdout.write('Generated docs written.\n');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
