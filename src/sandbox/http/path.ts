/**
 * Paths as segments, and path patterns matched segment by segment: the one reading of a path
 * for the router (./router.ts: literal and `:name` segments, in a trie), the fault plans'
 * `match` (`*` one segment, `**` any number) and the inspector's allowed actions.
 *
 * A pattern comes from user input (a tenant's fault plan over HTTP), so matching must never
 * backtrack: no regex is built from it. Runs of `**` collapse into one; the pattern is then
 * blocks of fixed length between `**`s. The first block must match at the start, the last at
 * the end, and each block between them at its leftmost place after the previous one (leftmost
 * is always safe: a later `**` absorbs whatever an earlier choice leaves). No block is ever
 * retried after the next one is placed, so a match costs at most (path segments + 1) x
 * (pattern segments) segment comparisons, and far fewer in practice (test/sandbox/http/path.test.ts
 * counts them).
 * @module
 */

/** One segment of a pattern: a literal, one segment (`*`, or `:name` which captures it), or any number (`**`). */
export type PatternSegment = { kind: 'literal'; value: string } | { kind: 'one'; name: string | null } | { kind: 'any' };

/**
 * The segments of a path, percent-decoded; empty segments (`//`, a trailing `/`) are ignored.
 * `null` when a segment does not decode.
 */
export function splitPath(path: string): string[] | null {
  const out: string[] = [];
  for (const raw of path.split('/')) {
    if (raw === '') continue;
    if (!raw.includes('%')) {
      out.push(raw);
      continue;
    }
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return out;
}

/** Reads one segment of a pattern; `**` only where `wildcards` allows it (the router has none). */
export function patternSegment(segment: string, wildcards: boolean): PatternSegment {
  if (wildcards && segment === '**') return { kind: 'any' };
  if (wildcards && segment === '*') return { kind: 'one', name: null };
  if (segment.startsWith(':') && segment.length > 1) return { kind: 'one', name: segment.slice(1) };
  return { kind: 'literal', value: segment };
}

/** A step counter for tests: every segment comparison adds one. */
export interface MatchSteps {
  steps: number;
}

/** A compiled path pattern: `/v1/quotes/:id/accept`, `/v1/users/:id/wallet`, `/v1/**`. */
export class PathPattern {
  /** The pattern as given. */
  readonly source: string;
  // Blocks of fixed length between `**`s; `anchored*`: no `**` before the first / after the last.
  readonly #blocks: PatternSegment[][];
  readonly #anchoredEnd: boolean;

  /** Compiles `pattern` (it must start with `/`); throws a `RangeError` otherwise. */
  constructor(pattern: string, options: { wildcards?: boolean } = {}) {
    if (!pattern.startsWith('/')) throw new RangeError(`The path must start with "/" (${pattern}).`);
    this.source = pattern;
    const segments = pattern
      .split('/')
      .filter((s) => s !== '')
      .map((s) => patternSegment(s, options.wildcards ?? true));
    const blocks: PatternSegment[][] = [[]];
    for (const segment of segments) {
      // A run of `**` is one `**`: an empty block between two is dropped.
      if (segment.kind === 'any') {
        if ((blocks.at(-1) as PatternSegment[]).length > 0 || blocks.length === 1) blocks.push([]);
      } else (blocks.at(-1) as PatternSegment[]).push(segment);
    }
    this.#anchoredEnd = segments.at(-1)?.kind !== 'any';
    // `blocks[0]` is what precedes the first `**` (maybe empty); with no `**`, it is everything.
    if (!this.#anchoredEnd && blocks.length > 1 && (blocks.at(-1) as PatternSegment[]).length === 0) blocks.pop();
    this.#blocks = blocks;
  }

  /** Whether the pattern has a `**`. */
  get hasWildcard(): boolean {
    return this.#blocks.length > 1 || !this.#anchoredEnd;
  }

  /** The captured `:name` segments when `path` matches, else `null`. `steps` counts the comparisons. */
  match(path: string | readonly string[], steps?: MatchSteps): Record<string, string> | null {
    const segments = typeof path === 'string' ? splitPath(path) : path;
    if (segments === null) return null;
    const params: Record<string, string> = {};
    const blocks = this.#blocks;
    const first = blocks[0] as PatternSegment[];
    const n = segments.length;
    if (blocks.length === 1 && this.#anchoredEnd) {
      // No `**`: the lengths must agree.
      return n === first.length && this.#at(first, segments, 0, params, steps) ? params : null;
    }
    // The first block at the start.
    if (n < first.length || !this.#at(first, segments, 0, params, steps)) return null;
    let from = first.length;
    // The last block (after the last `**`) at the end, unless the pattern ends with `**`.
    const last = this.#anchoredEnd ? (blocks.at(-1) as PatternSegment[]) : null;
    const end = last === null ? n : n - last.length;
    if (end < from) return null;
    const middle = last === null ? blocks.slice(1) : blocks.slice(1, -1);
    for (const block of middle) {
      // Leftmost place of this block in [from, end).
      let placed = -1;
      for (let i = from; i + block.length <= end; i++) {
        if (this.#at(block, segments, i, params, steps)) {
          placed = i;
          break;
        }
      }
      if (placed < 0) return null;
      from = placed + block.length;
    }
    if (last !== null && !this.#at(last, segments, end, params, steps)) return null;
    return params;
  }

  /** Whether `path` matches. */
  test(path: string | readonly string[], steps?: MatchSteps): boolean {
    return this.match(path, steps) !== null;
  }

  /** Whether `block` matches `segments` at `offset` (captures into `params`). */
  #at(block: readonly PatternSegment[], segments: readonly string[], offset: number, params: Record<string, string>, steps?: MatchSteps): boolean {
    for (let j = 0; j < block.length; j++) {
      if (steps) steps.steps++;
      const p = block[j] as PatternSegment;
      const s = segments[offset + j] as string;
      if (p.kind === 'literal') {
        if (p.value !== s) return false;
      } else if (p.kind === 'one' && p.name !== null) params[p.name] = s;
    }
    return true;
  }
}
