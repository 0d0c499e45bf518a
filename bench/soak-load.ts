/**
 * The load of bench/soak.ts in its own process (issue 34, fourth pass): the soak's full onramp
 * lifecycles over raw keep-alive sockets, one lifecycle in flight on each, as bench/server.ts's
 * load went to bench/load-generator.ts. A lifecycle is eight dependent requests, the same ones, in
 * the same order and with the same headers and bodies as the `PixUsdt` client sends them in the
 * old method (bench/soak.ts `--client`): create a user, approve its KYC (test helper), a quote, its
 * accept (Idempotency-Key `accept-N`), Pix paid and settled (test helper), retrieve the conversion,
 * the accept again (an idempotent replay: its id is checked against the first), list 10 conversions.
 * Each mutation carries a fresh UUID Idempotency-Key as the client's do. The ids a lifecycle needs
 * are read with `JSON.parse` of the small answers that hold them (user, quote, the two accepts);
 * the other answers are checked by status only (the client validated every answer's shape: that
 * is the cost this process does not pay, and the reason the old method capped the memory-only rate).
 *
 * Driven over IPC by bench/soak.ts (`fork`): `{ port, keys, ms, inFlight }` -> one
 * {@link SoakRound}. The lifecycle counter lives in this process and goes on across rounds and
 * servers, so that external ids and documents stay distinct within a tenant.
 * @module
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { WALLET, cpf } from '../test/support/fixtures.js';

/** One command of bench/soak.ts. */
export interface SoakCommand {
  port: number;
  /** The tenants' API keys; lifecycle n of connection w goes to `keys[(n + w) % keys.length]`. */
  keys: string[];
  ms: number;
  inFlight: number;
}

/** One round (a window of one server). */
export interface SoakRound {
  lifecycles: number;
  /** Every answered request's latency in ms, in answer order. */
  latencies: number[];
  /** Lifecycles that failed (an unexpected status or a replay of another conversion). */
  errors: number;
  /** The first failure, if any. */
  firstError?: string;
  /** Wall time of the round, in ms. */
  ms: number;
  /** This process's CPU time over the round, in ms. */
  cpuMs: number;
}

const HEAD_END = Buffer.from('\r\n\r\n');

interface Answer {
  status: number;
  body: string;
}

/** One keep-alive connection, one request in flight. */
class Connection {
  readonly #socket: net.Socket;
  #pending: Buffer = Buffer.alloc(0);
  #expected = -1;
  #status = 0;
  #bodyAt = 0;
  #waiting: { resolve: (a: Answer) => void; reject: (e: Error) => void } | undefined;
  #closed: Error | undefined;

  constructor(port: number) {
    this.#socket = net.connect(port, '127.0.0.1');
    this.#socket.setNoDelay(true);
    this.#socket.on('data', (chunk: Buffer) => this.#data(chunk));
    const fail = (e: Error): void => {
      this.#closed = e;
      const waiting = this.#waiting;
      this.#waiting = undefined;
      waiting?.reject(e);
    };
    this.#socket.on('error', fail);
    this.#socket.on('close', () => fail(new Error('the server closed the connection')));
  }

  request(head: string, body: string | undefined): Promise<Answer> {
    if (this.#closed !== undefined) return Promise.reject(this.#closed);
    return new Promise((resolve, reject) => {
      this.#waiting = { resolve, reject };
      this.#socket.write(body === undefined ? `${head}${head.startsWith('GET') ? '' : 'content-length: 0\r\n'}\r\n` : `${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  close(): void {
    this.#closed = new Error('closed');
    this.#socket.end();
  }

  #data(chunk: Buffer): void {
    this.#pending = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    if (this.#expected < 0) {
      const headEnd = this.#pending.indexOf(HEAD_END);
      if (headEnd < 0) return;
      const head = this.#pending.toString('latin1', 0, headEnd);
      const at = head.search(/\r\ncontent-length:/i);
      if (at < 0) {
        this.#socket.destroy(new Error(`an answer without content-length: ${head.slice(0, 200)}`));
        return;
      }
      this.#status = Number(head.slice(9, 12));
      this.#bodyAt = headEnd + 4;
      this.#expected = this.#bodyAt + Number.parseInt(head.slice(at + 17), 10);
    }
    if (this.#pending.length < this.#expected) return;
    const body = this.#pending.toString('utf8', this.#bodyAt, this.#expected);
    this.#pending = this.#pending.subarray(this.#expected);
    this.#expected = -1;
    const waiting = this.#waiting;
    this.#waiting = undefined;
    waiting?.resolve({ status: this.#status, body });
  }
}

// Lifecycles go on from here across rounds (the old method's counter started at 0 as well).
let counter = 0;

const QUOTE_TAIL = `,"source_currency":"BRL","target_currency":"USDT","source_amount":"20.00","destination_wallet_address":"${WALLET}","destination_wallet_network":"polygon"}`;

class Failed extends Error {}

/** One full lifecycle on `c` for the tenant of `key`; each request's latency goes to `latencies`. */
async function lifecycle(c: Connection, key: string, n: number, latencies: number[]): Promise<void> {
  const base = `host: 127.0.0.1\r\nconnection: keep-alive\r\nauthorization: Bearer ${key}\r\naccept: application/json\r\n`;
  const send = async (method: string, path: string, body: string | undefined, status: number, idempotencyKey: string = randomUUID()): Promise<Answer> => {
    let head = `${method} ${path} HTTP/1.1\r\n${base}`;
    if (method !== 'GET') head += `idempotency-key: ${idempotencyKey}\r\n`;
    if (body !== undefined) head += 'content-type: application/json\r\n';
    const t0 = performance.now();
    const answer = await c.request(head, body);
    latencies.push(performance.now() - t0);
    if (answer.status !== status) throw new Failed(`${method} ${path} answered ${answer.status}, not ${status}: ${answer.body.slice(0, 300)}`);
    return answer;
  };
  const id = (a: Answer): string => (JSON.parse(a.body) as { id: string }).id;
  const user = id(await send('POST', '/v1/users', `{"external_id":"soak-${n}","name":"User ${n}","document_type":"cpf","document_number":"${cpf(n)}"}`, 201));
  await send('POST', `/v1/test_helpers/users/${user}/kyc`, '{"status":"approved"}', 200);
  const quote = id(await send('POST', '/v1/quotes', `{"user_id":"${user}"${QUOTE_TAIL}`, 201));
  const conversion = id(await send('POST', `/v1/quotes/${quote}/accept`, undefined, 201, `accept-${n}`));
  await send('POST', `/v1/test_helpers/conversions/${conversion}/simulate-onramp-pix-paid`, '{"settle":true}', 200);
  await send('GET', `/v1/conversions/${conversion}`, undefined, 200);
  const replay = id(await send('POST', `/v1/quotes/${quote}/accept`, undefined, 201, `accept-${n}`));
  if (replay !== conversion) throw new Failed('the replay answered another conversion');
  await send('GET', '/v1/conversions?limit=10', undefined, 200);
}

/** Loads `port` for `ms` with `inFlight` connections, one lifecycle in flight on each. */
export async function soakRound(command: SoakCommand): Promise<SoakRound> {
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  const end = started + command.ms;
  const latencies: number[] = [];
  let lifecycles = 0;
  let errors = 0;
  let firstError: string | undefined;
  const worker = async (w: number): Promise<void> => {
    let c = new Connection(command.port);
    while (performance.now() < end) {
      const n = counter++;
      try {
        await lifecycle(c, command.keys[(n + w) % command.keys.length] as string, n, latencies);
        lifecycles++;
      } catch (e) {
        errors++;
        firstError ??= String(e);
        // A failed lifecycle may leave an answer in flight: a fresh connection for the next.
        c.close();
        c = new Connection(command.port);
      }
    }
    c.close();
  };
  await Promise.all(Array.from({ length: command.inFlight }, (_, w) => worker(w)));
  const cpu = process.cpuUsage(cpu0);
  const round: SoakRound = { lifecycles, latencies, errors, ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000 };
  if (firstError !== undefined) round.firstError = firstError;
  return round;
}

if (process.send !== undefined) {
  process.on('message', (command: SoakCommand) => {
    void soakRound(command).then(
      (round) => process.send?.(round),
      (e: unknown) => process.send?.({ lifecycles: 0, latencies: [], errors: 1, firstError: String(e), ms: 0, cpuMs: 0 } satisfies SoakRound),
    );
  });
}
