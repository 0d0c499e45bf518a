import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ROOT, generateAll } from '../../scripts/docs/generated.js';
import { REGENERATE_COMMAND } from '../../scripts/docs/notice.js';

const files = await generateAll();
const run = promisify(execFile);

describe('generated docs are fresh', () => {
  it('generates the state machines page, the OpenAPI document and the scenario file schema', () => {
    expect(files.map((f) => f.path).sort()).toEqual(['docs/openapi.json', 'docs/scenario-file.schema.json', 'docs/state-machines.md']);
  });

  for (const file of files) {
    it(`${file.path} matches what the code generates`, () => {
      let committed: string | null = null;
      try {
        committed = readFileSync(join(ROOT, file.path), 'utf8');
      } catch {
        // Reported below.
      }
      expect(committed, `${file.path} is missing: run \`${REGENERATE_COMMAND}\``).not.toBeNull();
      // Compared as a boolean first so that the message, not a 100 kB diff, leads the report.
      expect(committed === file.content, `${file.path} is stale: run \`${REGENERATE_COMMAND}\` and commit the result`).toBe(true);
    });
  }

  it('generates the same bytes twice (stable order)', async () => {
    const again = await generateAll();
    expect(again).toEqual(files);
  });

  it('the CLI in --check mode agrees, and refuses an unknown argument', async () => {
    const cli = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'scripts/generate-docs.ts', ...args], { cwd: ROOT, timeout: 60_000 });
    const { stdout } = await cli(['--check']);
    expect(stdout).toContain('up to date');
    await expect(cli(['--write-everything'])).rejects.toMatchObject({ code: 2 });
  });
});
