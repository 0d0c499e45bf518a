/**
 * `logs tail`: reads the server's request log feed (server-sent events at `/_sandbox/logs`).
 * @module
 */
import { type LogsTailOptions, statusMatches } from '../commands/logs.js';
import { LOG_FEED_PATH, type RequestLogEntry } from '../../sandbox/http/request-log.js';
import { EXIT, type Failure, type Io, print, report } from './io.js';

function line(entry: RequestLogEntry): string {
  const flags = [entry.replayed ? 'replayed' : '', entry.fault === null ? '' : `fault=${entry.fault}`].filter((f) => f !== '').join(' ');
  return `${entry.at}  ${entry.request_id}  ${entry.method} ${entry.path} ${entry.status} ${entry.latency_ms}ms${flags === '' ? '' : `  ${flags}`}`;
}

/** The error envelope of a refused feed request, as a failure record (`code` and `message` of our own when it has none). */
async function envelopeOf(response: Response, code: string, message: string): Promise<Failure> {
  const body = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown; request_id?: unknown } | null;
  return {
    code: typeof body?.code === 'string' ? body.code : code,
    message: typeof body?.message === 'string' ? body.message : message,
    status: response.status,
    ...(typeof body?.request_id === 'string' ? { request_id: body.request_id } : {}),
  };
}

/** Runs `logs tail` until SIGINT/SIGTERM or until the server ends the feed. */
export async function runLogsTail(options: LogsTailOptions, io: Io): Promise<number> {
  const stop = new AbortController();
  let response: Response;
  try {
    response = await fetch(`${options.url}${LOG_FEED_PATH}${options.backlog > 0 ? `?backlog=${options.backlog}` : ''}`, { headers: { authorization: `Bearer ${options.apiKey}`, accept: 'text/event-stream' }, signal: stop.signal });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    const message = `cannot reach the server at ${options.url} (${cause})`;
    const text = `pix-usdt-sandbox: logs tail: ${message}. Is \`pix-usdt-sandbox serve\` running there? Set --url or PIX_USDT_SANDBOX_URL to the "url" it printed.`;
    return report(io, options, { exit: EXIT.unreachable, text, failure: { code: 'server_unreachable', message } });
  }
  if (response.status === 401) {
    const failure = await envelopeOf(response, 'authentication_failed', 'the server refused the API key');
    const text = 'pix-usdt-sandbox: logs tail: the server refused the API key. Use a live API key of a tenant (its requests), or the "control_key" that serve printed (every request), as --api-key or PIX_USDT_API_KEY.';
    return report(io, options, { exit: EXIT.refused, text, failure });
  }
  if (!response.ok || response.body === null) {
    const failure = await envelopeOf(response, 'feed_unavailable', `${options.url}${LOG_FEED_PATH} answered ${response.status}`);
    const text = `pix-usdt-sandbox: logs tail: ${options.url}${LOG_FEED_PATH} answered ${response.status}; is this a pix-usdt-sandbox server of this version or later?`;
    return report(io, options, { exit: EXIT.failure, text, failure });
  }
  let signalled = false;
  // Before the line that says it is tailing: a caller may signal as soon as it reads it.
  void io.untilSignal().then(() => {
    signalled = true;
    stop.abort();
  });
  io.stderr(`pix-usdt-sandbox: tailing the request log of ${options.url} (Ctrl-C to stop)`);
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        if (data === '') continue; // a comment or a heartbeat
        const entry = JSON.parse(data) as RequestLogEntry;
        if (!statusMatches(options.status, entry.status)) continue;
        if (options.path !== undefined && !entry.path.startsWith(options.path)) continue;
        print(io, options, { ...entry }, line(entry));
      }
    }
  } catch (error) {
    if (!signalled) {
      const message = `the feed broke: ${(error as Error).message}`;
      return report(io, options, { exit: EXIT.unreachable, text: `pix-usdt-sandbox: logs tail: ${message}`, failure: { code: 'server_unreachable', message } });
    }
  }
  if (!signalled) io.stderr('pix-usdt-sandbox: the server closed the log (it stopped).');
  return EXIT.ok;
}
