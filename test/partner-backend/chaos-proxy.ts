// A proxy between the sandbox server's webhook deliveries and the partner backend, which
// misbehaves on purpose, deterministically per (event, arrival): a 503 before forwarding, a 500
// or a dropped connection after the backend processed the delivery (so the platform retries an
// event already processed), two concurrent copies, and late replays of deliveries already
// acknowledged (a duplicate arriving after later events). From its fourth arrival on, an event
// passes untouched, so every event is eventually delivered.
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyFault = 'pass' | 'fail_before' | 'fail_after' | 'drop_after' | 'duplicate';

/** What the proxy saw and did. */
export interface ProxyFigures {
  arrivals: number;
  faults: Record<ProxyFault, number>;
  /** Deliveries replayed late, straight to the backend. */
  lateReplays: number;
  /** The backend's answers by outcome (`processed`, `duplicate`, `in_progress`, ...), copies and replays included. */
  answers: Record<string, number>;
  /** Forwards that found the backend down (a restart). */
  backendDown: number;
}

/** A number in [0, 1) from a string (FNV-1a), for deterministic choices. */
export function unit(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

function decide(eventId: string, arrival: number): ProxyFault {
  if (arrival > 3) return 'pass';
  const r = unit(`${eventId}:${arrival}`);
  if (r < 0.1) return 'fail_before';
  if (r < 0.16) return 'fail_after';
  if (r < 0.22) return 'drop_after';
  if (r < 0.32) return 'duplicate';
  return 'pass';
}

function outcomeOf(status: number | null, body: string): string {
  if (status === null) return 'unreachable';
  try {
    const json = JSON.parse(body) as { received?: boolean; duplicate?: boolean; error?: string };
    if (json.duplicate === true) return 'duplicate';
    if (json.received === true) return 'processed';
    return json.error ?? `status_${status}`;
  } catch {
    return `status_${status}`;
  }
}

interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
}

/** Replays stay well inside the 300 s signature tolerance, however slow the machine. */
const REPLAY_WITHIN_MS = 60_000;

export class ChaosProxy {
  readonly figures: ProxyFigures = {
    arrivals: 0,
    faults: { pass: 0, fail_before: 0, fail_after: 0, drop_after: 0, duplicate: 0 },
    lateReplays: 0,
    answers: {},
    backendDown: 0,
  };
  /** Where the backend listens now (it changes on a restart). */
  target = '';
  #server: Server = createServer((req, res) => void this.#onRequest(req, res));
  readonly #arrivals = new Map<string, number>();
  readonly #acknowledged: Array<Delivery & { at: number }> = [];
  #inFlight = 0;
  readonly #replays = new Set<Promise<void>>();

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/webhooks/pix-usdt`;
  }

  /** Requests being handled, late replays included. */
  get busy(): boolean {
    return this.#inFlight > 0 || this.#replays.size > 0;
  }

  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }

  async #forward(delivery: Delivery): Promise<{ status: number | null; body: string }> {
    try {
      const response = await fetch(this.target, { method: 'POST', headers: delivery.headers, body: new Uint8Array(delivery.body), signal: AbortSignal.timeout(15_000) });
      const body = await response.text();
      this.#count(outcomeOf(response.status, body));
      return { status: response.status, body };
    } catch {
      this.figures.backendDown += 1;
      this.#count('unreachable');
      return { status: null, body: '' };
    }
  }

  #count(outcome: string): void {
    this.figures.answers[outcome] = (this.figures.answers[outcome] ?? 0) + 1;
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.#inFlight += 1;
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers: Record<string, string> = {};
      for (const name of ['content-type', 'x-service-signature', 'x-service-event-id']) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      const delivery: Delivery = { headers, body: Buffer.concat(chunks) };
      const eventId = headers['x-service-event-id'] ?? '';
      const arrival = (this.#arrivals.get(eventId) ?? 0) + 1;
      this.#arrivals.set(eventId, arrival);
      this.figures.arrivals += 1;
      const fault = decide(eventId, arrival);
      this.figures.faults[fault] += 1;
      if (fault === 'fail_before') {
        res.writeHead(503).end('chaos: before forwarding');
        return;
      }
      let answer: { status: number | null; body: string };
      if (fault === 'duplicate') {
        const [first] = await Promise.all([this.#forward(delivery), this.#forward(delivery)]);
        answer = first;
      } else {
        answer = await this.#forward(delivery);
      }
      if (fault === 'drop_after') {
        res.socket?.destroy();
        return;
      }
      if (fault === 'fail_after') {
        res.writeHead(500).end('chaos: after the backend answered');
        return;
      }
      if (answer.status === null) {
        res.writeHead(502).end('chaos proxy: the backend is unreachable');
        return;
      }
      if (answer.status >= 200 && answer.status < 300) this.#maybeReplayLate(delivery, eventId, arrival);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    } finally {
      this.#inFlight -= 1;
    }
  }

  /** One acknowledged delivery in eight is kept; one arrival in ten replays a kept one, later. */
  #maybeReplayLate(delivery: Delivery, eventId: string, arrival: number): void {
    const r = unit(`replay:${eventId}:${arrival}`);
    if (r < 0.125) this.#acknowledged.push({ ...delivery, at: Date.now() });
    while ((this.#acknowledged[0]?.at ?? Infinity) < Date.now() - REPLAY_WITHIN_MS) this.#acknowledged.shift();
    if (r > 0.9 && this.#acknowledged.length > 0) {
      const late = this.#acknowledged.splice(Math.floor(r * 1000) % this.#acknowledged.length, 1)[0] as Delivery & { at: number };
      this.figures.lateReplays += 1;
      const replay = this.#forward(late).then(() => undefined);
      this.#replays.add(replay);
      void replay.finally(() => this.#replays.delete(replay));
    }
  }
}
