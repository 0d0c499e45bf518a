/**
 * `logs tail`: the server's request log, live (runner: run/logs.ts).
 * @module
 */
import type { Command } from 'commander';
import { UsageError } from './usage.js';
import { type Connection, parseConnection, withConnection } from './connection.js';
import type { CommandSpec } from './spec.js';

/** Options of `logs tail`. */
export interface LogsTailOptions extends Connection {
  /** Status filters: exact codes (`404`) or classes (`4xx`); empty: all. */
  status: string[];
  /** Path prefix filter, e.g. `/v1/conversions`. */
  path: string | undefined;
  /** How many of the requests the server kept to print first (0: only new ones). */
  backlog: number;
}

/** `4xx,503` -> `['4xx', '503']`, validated. */
export function parseStatusFilter(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const items = raw.split(',').map((s) => s.trim().toLowerCase()).filter((s) => s !== '');
  for (const item of items) {
    if (!/^[1-5](xx|\d\d)$/.test(item)) throw new UsageError(`--status takes codes or classes such as 404 or 4xx, comma-separated; got ${JSON.stringify(item)}.`);
  }
  if (items.length === 0) throw new UsageError('--status needs at least one code or class.');
  return items;
}

/** Whether `status` passes the filters of {@link parseStatusFilter}. */
export function statusMatches(filters: readonly string[], status: number): boolean {
  if (filters.length === 0) return true;
  const s = String(status);
  return filters.some((f) => (f.endsWith('xx') ? s[0] === f[0] && s.length === 3 : s === f));
}

export const logsTail: CommandSpec<'logs tail', LogsTailOptions> = {
  kind: 'logs tail',
  synopsis: 'logs tail [--status 4xx] [--path /v1/conversions] [--backlog N]',
  define(program: Command): Command {
    const logs = program.commands.find((c) => c.name() === 'logs') ?? program.command('logs').summary("the server's request log").helpCommand(false);
    return withConnection(
      logs
        .command('tail')
        .summary("print the server's request log, live")
        .description(`Print the request log of a running server, live, one line per answered request:
time, request id, method, path (no query string), status, latency, "replayed" for an idempotent
replay and "fault=<plan>" for an injected fault. The server keeps the last 1,000 requests
(serve --request-log-size); tail starts with the new ones, or with the last N of those with
--backlog N (the filters apply to them too). Ctrl-C stops. A tenant's API key shows that tenant's requests
only; the "control_key" that serve printed (given as --api-key) shows every tenant's.`)
        .option('--status <LIST>', 'only these statuses: codes or classes, comma-separated (e.g. 4xx,503)')
        .option('--path <PREFIX>', 'only paths that start with PREFIX (e.g. /v1/conversions)')
        .option('--backlog <N>', 'first print the last N requests the server kept (default 0: only new ones)'),
    );
  },
  parse(values) {
    const path = values['path'] as string | undefined;
    if (path !== undefined && !path.startsWith('/')) throw new UsageError(`--path must start with /, got ${JSON.stringify(path)}.`);
    const rawBacklog = values['backlog'] as string | undefined;
    if (rawBacklog !== undefined && !/^\d{1,7}$/.test(rawBacklog)) throw new UsageError(`--backlog takes a number of requests, such as 50; got ${JSON.stringify(rawBacklog)}.`);
    return {
      ...parseConnection(values, { control: true }),
      status: parseStatusFilter(values['status'] as string | undefined),
      path,
      backlog: rawBacklog === undefined ? 0 : Number(rawBacklog),
    };
  },
};
