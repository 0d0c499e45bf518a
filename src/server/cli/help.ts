/**
 * The CLI's help text is wrapped once, to the terminal: the sources keep their paragraphs wrapped
 * for reading ({@link prose} joins them back), and {@link wrap} breaks every line at the width of
 * the terminal (80 when stdout is not one), continuation lines hanging under the text of a list
 * item. commander wraps option and command lists itself, through the same {@link wrap}.
 * @module
 */

/** The width help is wrapped to: the terminal's columns, or 80 when stdout is not a terminal. */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && typeof stream.columns === 'number' && stream.columns > 0 ? stream.columns : 80;
}

/**
 * Joins the lines of each paragraph of `text` into one line: a line that starts without a space
 * continues the line before it when that one is prose too. Blank lines (between paragraphs) and
 * indented lines (examples, lists) stay as they are.
 */
export function prose(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const previous = out[out.length - 1];
    if (line !== '' && !/^\s/.test(line) && previous !== undefined && previous !== '' && !/^\s/.test(previous)) out[out.length - 1] = `${previous} ${line}`;
    else out.push(line);
  }
  return out.join('\n');
}

/** Narrower than this, nothing is wrapped (a column that thin reads worse than long lines). */
const MIN_WIDTH = 20;

/**
 * Wraps each line of `text` at `width` columns, between words. A continuation line of an indented
 * list item (`  term  text`) hangs under its text, of another indented line two columns in.
 * A word longer than the width stays whole on its own line.
 */
export function wrap(text: string, width: number): string {
  if (width < MIN_WIDTH) return text;
  return text
    .split('\n')
    .map((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string {
  if (line.length <= width) return line.trimEnd();
  const indent = (/^ */.exec(line) as RegExpExecArray)[0].length;
  // `  --flag VALUE   description`: continuation lines start under the description.
  // Another indented line (a usage line) hangs two columns in.
  const item = indent > 0 ? /^ *\S(?:.*?\S)? {2,}(?=\S)/.exec(line) : null;
  const hangWidth = item !== null && item[0].length <= width / 2 ? item[0].length : indent > 0 ? indent + 2 : 0;
  const hang = ' '.repeat(hangWidth);
  const chunks = line.match(/ *\S+/g) ?? [];
  const lines: string[] = [];
  let current = chunks.shift() ?? '';
  for (const chunk of chunks) {
    if (current.length + chunk.length <= width) current += chunk;
    else {
      lines.push(current);
      current = hang + chunk.trimStart();
    }
  }
  lines.push(current);
  return lines.join('\n');
}
