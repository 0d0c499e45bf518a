/**
 * The nesting depth of JSON text, measured without walking a parsed value: JSON nested 100,000
 * levels deep parses (V8 parses iteratively), but a recursive walk of the value, `JSON.stringify`
 * included, overflows the stack. Request bodies (http/json-body.ts) and tenant documents
 * (core/tenant-schema.ts) are measured before anything walks them.
 * @module
 */

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The deepest nesting of `[` and `{` in JSON text, outside strings (one pass, no recursion). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) max = depth;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return max;
}

/**
 * Whether JSON text nests deeper than `max` ({@link jsonDepth} `> max`), answered without the
 * character loop when the text holds at most `max` of `{` and `[` in all (strings included): the
 * depth cannot exceed their count, and two native `indexOf` scans are cheaper than the loop over
 * a request body (most have one or two).
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let openers = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++openers > max) return jsonDepth(text) > max;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++openers > max) return jsonDepth(text) > max;
  return false;
}
