/**
 * The load generator of bench/server.ts, in its own process (issue 34): raw keep-alive sockets,
 * each with one request in flight, writing request bytes built once (a new user's body is built
 * per request) and reading only the status line and `content-length` of each answer. Per request
 * it costs a fraction of what a bare `node:http` server costs, so that the bare server, not the
 * generator, is what limits the bare rounds: with a `node:http` client in the bench's own process
 * (the method until issue 34) the generator spent more CPU per request than the bare server it
 * loaded (about 150 us against 50-100 us, busy machine), and the bare figure was the generator's.
 *
 * Driven over IPC by bench/server.ts (`fork`): `{ port, kind, ms, inFlight }` -> one {@link Round}.
 * @module
 */
import net from 'node:net';
import { cpf } from '../test/support/fixtures.js';

/** What to send: fixed bytes, or a new user per request (a fresh Idempotency-Key and document). */
export type LoadKind = { method: string; path: string; headers: Record<string, string>; body?: string; status: number } | { newUser: true; path: string; headers: Record<string, string>; status: number };

/** One command of bench/server.ts. */
export interface LoadCommand {
  port: number;
  kind: LoadKind;
  ms: number;
  inFlight: number;
}

/** One round's result. */
export interface Round {
  /** Answers with the expected status. */
  done: number;
  /** Wall time from the first request to the last answer, in ms. */
  ms: number;
  /** The generator's own CPU time over the round, in ms. */
  cpuMs: number;
  /** The first unexpected answer, if any (the round stops there). */
  error?: string;
}

function requestBytes(method: string, path: string, headers: Record<string, string>, body: string | undefined): Buffer {
  let head = `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  if (body !== undefined) head += `content-length: ${Buffer.byteLength(body)}\r\n`;
  return Buffer.from(`${head}\r\n${body ?? ''}`);
}

// New users go on from here in each round (distinct from bench/server.ts's own seed users).
let counter = 2_000_000;

function nextRequest(kind: LoadKind): () => Buffer {
  if (!('newUser' in kind)) {
    const bytes = requestBytes(kind.method, kind.path, kind.headers, kind.body);
    return () => bytes;
  }
  return () => {
    const n = ++counter;
    const body = `{"external_id":"g${n}","name":"User ${n}","document_type":"cpf","document_number":"${cpf(n)}"}`;
    return requestBytes('POST', kind.path, { ...kind.headers, 'idempotency-key': `g${n}` }, body);
  };
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Loads `port` for `ms` with `inFlight` connections, one request in flight on each. */
export function loadRound(command: LoadCommand): Promise<Round> {
  const next = nextRequest(command.kind);
  const status = String(command.kind.status);
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const end = started + command.ms;
  let done = 0;
  let error: string | undefined;
  const connection = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const socket = net.connect(command.port, '127.0.0.1');
      socket.setNoDelay(true);
      let pending: Buffer = Buffer.alloc(0);
      let expected = -1; // the whole answer's length, once its head is in
      socket.on('connect', () => socket.write(next()));
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        for (;;) {
          if (expected < 0) {
            const headEnd = pending.indexOf(HEAD_END);
            if (headEnd < 0) return;
            const head = pending.toString('latin1', 0, headEnd);
            const at = head.search(/\r\ncontent-length:/i);
            if (at < 0) {
              error = `an answer without content-length: ${head.slice(0, 200)}`;
              socket.destroy();
              return;
            }
            if (head.slice(9, 12) !== status && error === undefined) error = `answered ${head.slice(9, 12)}, not ${status}: ${pending.toString('utf8', 0, Math.min(pending.length, 400))}`;
            expected = headEnd + 4 + Number.parseInt(head.slice(at + 17), 10);
          }
          if (pending.length < expected) return;
          pending = pending.subarray(expected);
          expected = -1;
          if (error !== undefined) {
            socket.destroy();
            return;
          }
          done++;
          if (performance.now() >= end) {
            socket.end();
            return;
          }
          socket.write(next());
        }
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
  return Promise.all(Array.from({ length: command.inFlight }, connection)).then(() => {
    const cpu = process.cpuUsage(cpu0);
    const round: Round = { done, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
    if (error !== undefined) round.error = error;
    return round;
  });
}

if (process.send !== undefined) {
  process.on('message', (command: LoadCommand) => {
    void loadRound(command).then(
      (round) => process.send?.(round),
      (e: unknown) => process.send?.({ done: 0, ms: 0, cpuMs: 0, error: String(e) } satisfies Round),
    );
  });
}
