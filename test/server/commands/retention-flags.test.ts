/**
 * Issue 28: the `serve` flags that set what the sandbox keeps besides its records
 * (`--event-log-size`, `--delivery-log-size`, `--request-log-size`, `--idempotency-ttl`), parsed
 * without a process, then applied by a server started in process.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError, parseCommand } from '../../../src/server/cli/program.js';
import { type RunningServer, startServer } from '../../../src/server/http/start.js';
import type { ServeOptions } from '../../../src/server/commands/serve.js';

const running: RunningServer[] = [];
afterEach(async () => {
  for (const server of running.splice(0)) await server.close();
});

function serveOptions(args: string[]): ServeOptions {
  const command = parseCommand(['serve', ...args]);
  if (command.kind !== 'serve') throw new Error(`not serve: ${command.kind}`);
  return command.options;
}

describe('serve --event-log-size --delivery-log-size --request-log-size --idempotency-ttl', () => {
  it('parses into the createSandbox options of the same names; absent flags leave the defaults', () => {
    expect(serveOptions(['--event-log-size', '500', '--delivery-log-size=20000', '--request-log-size', '5', '--idempotency-ttl', '172800']).sandbox).toEqual({
      environment: 'sandbox',
      eventLogSize: 500,
      deliveryLogSize: 20_000,
      requestLogSize: 5,
      idempotencyTtlSeconds: 172_800,
    });
    expect(serveOptions([]).sandbox).toEqual({ environment: 'sandbox' });
  });

  it('a value that is not a positive whole number is a usage error naming the flag', () => {
    for (const [flag, value] of [
      ['--event-log-size', '0'],
      ['--delivery-log-size', '1.5'],
      ['--request-log-size', '-1'],
      ['--idempotency-ttl', '1e3'],
    ] as const) {
      expect(() => parseCommand(['serve', flag, value]), `${flag} ${value}`).toThrow(UsageError);
      expect(() => parseCommand(['serve', flag, value])).toThrow(flag);
    }
  });

  it('a server keeps as many requests as --request-log-size, in its log feed and in the inspector', async () => {
    const server = await startServer({ ...serveOptions(['--port', '0', '--request-log-size', '3']) }, () => undefined);
    running.push(server);
    for (let i = 0; i < 5; i++) {
      const response = await fetch(`${server.url}/v1/users?limit=1`, { headers: { authorization: `Bearer ${server.sandbox.apiKey}` } });
      expect(response.status).toBe(200);
    }
    expect(server.requests.recent()).toHaveLength(3);
    expect(server.sandbox.inspector.requests()).toHaveLength(3);
  });
});
