/**
 * A small router over method and path (hono's interface): `add(method, path, handler)` and
 * `match(method, path)`. Paths use `:name` segments. Matching walks a trie of segments, so
 * its cost depends on the path length, not on the number of routes. Paths and segments are
 * read as every path pattern reads them (./path.ts).
 * @module
 */
import { upperMethod } from './call.js';
import { patternSegment } from './path.js';

/** What a match yields: the handler and the decoded path parameters. */
export interface RouteMatch<H> {
  handler: H;
  params: Record<string, string>;
}

/** A router over method and path. */
export interface Router<H> {
  add(method: string, path: string, handler: H): void;
  /** The handler for a method and path; `null` for an unknown path or a method not allowed there. */
  match(method: string, path: string): RouteMatch<H> | null;
}

interface Node<H> {
  fixed: Map<string, Node<H>>;
  param: { name: string; node: Node<H> } | null;
  handlers: Map<string, H>;
}

function node<H>(): Node<H> {
  return { fixed: new Map(), param: null, handlers: new Map() };
}

/** A trie router. Static segments win over parameters. */
export class TrieRouter<H> implements Router<H> {
  readonly #root: Node<H> = node();

  add(method: string, path: string, handler: H): void {
    let current = this.#root;
    for (const raw of path.split('/').filter(Boolean)) {
      const segment = patternSegment(raw, false);
      if (segment.kind === 'one') {
        const name = segment.name as string;
        if (current.param && current.param.name !== name) throw new Error(`conflicting parameter names at ${path}`);
        current.param ??= { name, node: node() };
        current = current.param.node;
      } else {
        let next = current.fixed.get(raw);
        if (!next) current.fixed.set(raw, (next = node()));
        current = next;
      }
    }
    current.handlers.set(method.toUpperCase(), handler);
  }

  match(method: string, path: string): RouteMatch<H> | null {
    const params: Record<string, string> = {};
    let current: Node<H> = this.#root;
    // The segments as splitPath reads them (empty ones skipped, `%` escapes decoded), walked as
    // they are cut: no array of them (a match runs on every request).
    const n = path.length;
    for (let start = 0; start < n; ) {
      let end = path.indexOf('/', start);
      if (end < 0) end = n;
      if (end > start) {
        let segment = path.slice(start, end);
        if (segment.includes('%')) {
          try {
            segment = decodeURIComponent(segment);
          } catch {
            return null;
          }
        }
        // A node with no fixed segment below it (a record's id) needs no lookup of the segment.
        const fixed = current.fixed.size === 0 ? undefined : current.fixed.get(segment);
        if (fixed) {
          current = fixed;
        } else if (current.param) {
          params[current.param.name] = segment;
          current = current.param.node;
        } else {
          return null;
        }
      }
      start = end + 1;
    }
    const handler = current.handlers.get(upperMethod(method));
    return handler === undefined ? null : { handler, params };
  }
}
