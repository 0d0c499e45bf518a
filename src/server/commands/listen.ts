/**
 * `listen`: forwards the server's webhook deliveries to a local URL (runner: run/listen.ts).
 * @module
 */
import type { Command } from 'commander';
import { EVENT_TYPES } from '../../models/index.js';
import { UsageError, parseHttpUrl } from './usage.js';
import { type Connection, parseConnection, withConnection } from './connection.js';
import type { CommandSpec } from './spec.js';

/** Options of `listen`. */
export interface ListenOptions extends Connection {
  /** Where each delivery is forwarded. */
  forwardTo: string;
  /** Event kinds of the endpoint (`['*']` for all). */
  events: string[];
}

/** `conversion.*,user.kyc_approved` -> the event kinds of the catalog it names; `*` stays `*`. */
export function expandEvents(raw: string): string[] {
  const out = new Set<string>();
  for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    if (item === '*') return ['*'];
    const match = item.endsWith('.*') ? EVENT_TYPES.filter((t) => t.startsWith(item.slice(0, -1))) : EVENT_TYPES.filter((t) => t === item);
    if (match.length === 0) throw new UsageError(`--events: ${JSON.stringify(item)} names no event kind (e.g. conversion.completed, conversion.*, *).`);
    for (const t of match) out.add(t);
  }
  if (out.size === 0) throw new UsageError('--events needs at least one event kind.');
  return [...out];
}

export const listen: CommandSpec<'listen', ListenOptions> = {
  kind: 'listen',
  synopsis: 'listen --forward-to URL [--events conversion.*]',
  define(program: Command): Command {
    return withConnection(
      program
        .command('listen')
        .summary('forward the webhook deliveries of a running server to a local URL')
        .description(`Forward the webhook deliveries of a running server to a local URL.

Starts a receiver on a free loopback port and registers it as a webhook endpoint of the
server for as long as it runs. Each delivery is forwarded to --forward-to with its raw body and
its X-Service-* signature headers unchanged; the sandbox gets the status your receiver answers.
Prints the endpoint's signing secret at start (verify with it), then one line per delivery:
event type, event id, your receiver's status and latency. Ctrl-C (SIGINT or SIGTERM) deletes the
endpoint and exits; so does the end of the process that started it (npx, a script), as for serve.`)
        .requiredOption('--forward-to <URL>', 'your receiver, e.g. http://localhost:3000/webhooks')
        .option('--events <LIST>', 'event kinds, comma-separated; "conversion.*" for a family (default: every kind)', '*'),
    );
  },
  parse(values) {
    const forwardTo = parseHttpUrl(values['forwardTo'] as string, '--forward-to').href;
    return { ...parseConnection(values), forwardTo, events: expandEvents(values['events'] as string) };
  },
};
