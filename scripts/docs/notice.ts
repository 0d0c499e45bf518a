/**
 * The header of every generated page.
 * @module
 */

/** The command that regenerates every generated file. */
export const REGENERATE_COMMAND = 'node --import tsx scripts/generate-docs.ts';

/** "Generated, do not edit" with the source and the command, as a Markdown comment and a note. */
export const GENERATED_NOTICE = (source: string): string =>
  `<!-- Generated from ${source} by scripts/generate-docs.ts. Do not edit: run \`${REGENERATE_COMMAND}\`. -->\n` +
  `> Generated from \`${source}\`; do not edit by hand. Regenerate with \`${REGENERATE_COMMAND}\`` +
  ' (`npm test` fails when this file is stale).';
