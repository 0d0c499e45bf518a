/**
 * What a refused start must leave as it was: every name of a data folder with its kind, mode and
 * bytes (issue 35: "the file is left as it is" holds for modes too).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** Every name of `dir`, sorted, as `file MODE SHA256`, `fifo MODE` or `other MODE`. */
export function folderState(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name);
    const stat = lstatSync(file);
    const mode = (stat.mode & 0o777).toString(8);
    out[name] = stat.isFile() ? `file ${mode} ${createHash('sha256').update(readFileSync(file)).digest('hex')}` : `${stat.isFIFO() ? 'fifo' : 'other'} ${mode}`;
  }
  return out;
}
