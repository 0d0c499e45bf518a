/**
 * What a scenario script works with: the public client, a raw request for what the client
 * cannot send (no Idempotency-Key, a malformed body, another key), fixtures created for this
 * run only, and the expectations that record checks.
 * @module
 */
import { PixUsdt, isApiError, type FetchLike } from '../index.js';
import { CATALOG_STATUS, ERROR_ENVELOPE_FIELDS, type FieldSet } from './reference.js';
import { cpfFrom } from './check-digits.js';
import { checkFieldSet, kindOf } from './compare.js';
import type { Check, CheckLevel, ReceivedWebhook, Scenario } from './types.js';
import type { PixFixtures } from './reference.js';

/** One request and its answer as the runner saw it on the wire. */
export interface Observed {
  /** HTTP method. */
  method: string;
  /** Path and query. */
  path: string;
  /** HTTP status. */
  status: number;
  /** Response headers. */
  headers: Headers;
  /** Response body text. */
  text: string;
}

/** Thrown by a scenario step whose precondition failed: the scenario stops with verdict `fail`. */
export class ScenarioStop extends Error {
  override readonly name = 'ScenarioStop';
}

/** A polygon address the onramp quotes deliver to (no funds ever move in a sandbox). */
export const WALLET_ADDRESS = '0x1111111111111111111111111111111111111111';

/** Settings the runner hands to every context. */
export interface ContextSettings {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  runId: string;
  pixFixtures: PixFixtures;
  receiverUrl: string | undefined;
  received: (() => ReceivedWebhook[] | Promise<ReceivedWebhook[]>) | undefined;
  webhookWaitMs: number;
  sleep: (ms: number) => Promise<void>;
  /** Shared across the scenarios of one run. */
  shared: { approvedUserId?: Promise<string>; counter: number; observed: Observed[] };
}

/** The handle a scenario script receives. */
export class ScenarioContext {
  /** The public client, retries off and validation off, so answers are seen as sent. */
  readonly client: PixUsdt;
  /** Checks recorded so far. */
  readonly checks: Check[] = [];
  readonly #s: ContextSettings;

  constructor(settings: ContextSettings) {
    this.#s = settings;
    this.client = new PixUsdt({ apiKey: settings.apiKey, baseUrl: settings.baseUrl, fetch: settings.fetch, maxRetries: 0, validation: 'off' });
  }

  /** The run prefix. */
  get runId(): string {
    return this.#s.runId;
  }

  /** The Pix table's fixed keys. */
  get pixFixtures(): PixFixtures {
    return this.#s.pixFixtures;
  }

  /** The webhook receiver URL, if the run has one. */
  get receiverUrl(): string | undefined {
    return this.#s.receiverUrl;
  }

  /** What the receiver got, if the caller can tell. */
  received(): Promise<ReceivedWebhook[]> | undefined {
    const read = this.#s.received;
    return read === undefined ? undefined : Promise.resolve(read());
  }

  /** How long to wait for deliveries. */
  get webhookWaitMs(): number {
    return this.#s.webhookWaitMs;
  }

  /** Waits (the runner's sleep). */
  sleep(ms: number): Promise<void> {
    return this.#s.sleep(ms);
  }

  /** A unique external id under the run prefix. */
  externalId(label: string): string {
    return `${this.#s.runId}-${label}-${++this.#s.shared.counter}`;
  }

  /** An Idempotency-Key under the run prefix. */
  idempotencyKey(label: string): string {
    return this.externalId(`key-${label}`);
  }

  /** A fresh valid CPF, different for every call of the run. */
  cpf(): string {
    const n = ++this.#s.shared.counter;
    let hash = 0;
    for (const ch of this.#s.runId) hash = (hash * 31 + ch.charCodeAt(0)) >>> 0;
    return cpfFrom(String((hash % 900_000_000) + 100_000_000 + n * 7_919).slice(-9));
  }

  /** The last exchange on the wire. */
  last(): Observed {
    const last = this.#s.shared.observed.at(-1);
    if (last === undefined) throw new ScenarioStop('No request was observed yet.');
    return last;
  }

  /** A request the client would not send as is. `auth: false` leaves out Authorization; a string replaces it. */
  async raw(method: string, path: string, options: { body?: string; idempotencyKey?: string | false; auth?: string | false } = {}): Promise<Observed> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.auth !== false) headers['authorization'] = options.auth ?? `Bearer ${this.#s.apiKey}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && options.idempotencyKey !== false) headers['idempotency-key'] = options.idempotencyKey ?? this.idempotencyKey('raw');
    await this.#s.fetch(`${this.#s.baseUrl}${path}`, { method, headers, ...(options.body === undefined ? {} : { body: options.body }) });
    return this.last();
  }

  /** A user created for this run with KYC approved by the helper, shared by the scenarios that need one. */
  approvedUser(): Promise<string> {
    this.#s.shared.approvedUserId ??= (async () => {
      const user = await this.step('create the run user', () =>
        this.client.users.create({ external_id: this.externalId('user'), name: 'Parity Run', document_type: 'cpf', document_number: this.cpf() }));
      await this.step('approve the run user (KYC helper)', () => this.client.testHelpers.users.kyc(user.id, { status: 'approved' }));
      return user.id;
    })();
    return this.#s.shared.approvedUserId;
  }

  /** Records a check. `ok` defaults to `expected === observed`. */
  check(name: string, level: CheckLevel, expected: string, observed: string, ok = level === 'note' || expected === observed): boolean {
    this.checks.push({ name, level, expected, observed, ok });
    return ok;
  }

  /** A promised value. */
  expectEqual(name: string, expected: unknown, observed: unknown, level: CheckLevel = 'promise'): boolean {
    return this.check(name, level, show(expected), show(observed));
  }

  /** A promised value among several. */
  expectOneOf(name: string, allowed: readonly unknown[], observed: unknown, level: CheckLevel = 'promise'): boolean {
    return this.check(name, level, `one of ${allowed.map(show).join(', ')}`, show(observed), allowed.includes(observed as never));
  }

  /** A promised truth, described in words. */
  expectTrue(name: string, expected: string, condition: boolean, observed: string, level: CheckLevel = 'promise'): boolean {
    return this.check(name, level, expected, observed, condition);
  }

  /** An observation with no expectation. */
  note(name: string, observed: unknown): void {
    this.check(name, 'note', '(not shown)', typeof observed === 'string' ? observed : show(observed));
  }

  /**
   * The reference's field set and types: missing fields and wrong kinds are promise failures
   * (null passes: which fields can be null is not shown); extra fields are noted.
   */
  expectFields(name: string, value: unknown, fields: FieldSet): boolean {
    const r = checkFieldSet(value, fields);
    const problems = [...r.missing.map((f) => `${f}: absent`), ...r.wrongKind.map((d) => `${d.path || '(root)'}: ${d.observed}, not ${d.expected}`)];
    const ok = this.check(`${name}: fields and types`, 'promise', `${Object.keys(fields).length} reference fields with their types`, problems.length === 0 ? 'as expected' : problems.join('; '), problems.length === 0);
    if (r.extra.length > 0) this.note(`${name}: fields beyond the reference`, r.extra.join(', '));
    return ok;
  }

  /** The status of the last answer, where the reference does not show it: a finding against the project's decision. */
  expectStatusDecision(name: string, decided: number): void {
    this.check(`${name}: HTTP status`, 'finding', String(decided), String(this.last().status));
  }

  /**
   * A call that must succeed: on an API error it records the failed check and stops the
   * scenario (what follows depends on it).
   */
  async step<T>(name: string, call: () => PromiseLike<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (!isApiError(error)) throw error;
      this.check(name, 'promise', 'success', `${error.status ?? '?'} ${error.code ?? ''}`.trim(), false);
      throw new ScenarioStop(`${name}: ${error.status ?? '?'} ${error.code ?? ''}`);
    }
  }

  /**
   * A call that must fail with `code`. Checks the code, the status (the catalog's, or the
   * project's decision as a finding where the reference shows none), and the envelope.
   * `level` lowers the code check itself to a finding where the reference leaves the code open.
   */
  async expectError(name: string, call: () => Promise<unknown>, code: string, options: { status?: number; level?: CheckLevel } = {}): Promise<Observed | undefined> {
    const level = options.level ?? 'promise';
    try {
      await call();
    } catch (error) {
      if (!isApiError(error)) throw error;
      this.check(`${name}: code`, level, code, String(error.code));
      const promised = CATALOG_STATUS[code];
      if (promised !== undefined && level === 'promise') this.check(`${name}: HTTP status`, 'promise', String(promised), String(error.status));
      else if (options.status !== undefined) this.check(`${name}: HTTP status`, 'finding', String(options.status), String(error.status));
      else this.note(`${name}: HTTP status`, String(error.status));
      const observed = this.last();
      this.expectEnvelope(name, observed);
      return observed;
    }
    this.check(`${name}: code`, level, code, `success ${this.last().status}`, false);
    return undefined;
  }

  /** The error envelope of an answer: code, message and request_id strings, `x-request-id` equal to request_id. */
  expectEnvelope(name: string, observed: Observed): void {
    let body: unknown;
    try {
      body = JSON.parse(observed.text);
    } catch {
      this.check(`${name}: envelope`, 'promise', 'a JSON body', observed.text.slice(0, 80), false);
      return;
    }
    const r = checkFieldSet(body, ERROR_ENVELOPE_FIELDS);
    const problems = [...r.missing.map((f) => `${f} absent`), ...r.wrongKind.map((d) => `${d.path} ${d.observed}`)];
    const record = (body ?? {}) as Record<string, unknown>;
    if (record['details'] !== undefined && kindOf(record['details']) !== 'object') problems.push(`details ${kindOf(record['details'])}`);
    const header = observed.headers.get('x-request-id');
    if (header !== record['request_id']) problems.push(`x-request-id ${header === null ? 'absent' : 'differs from request_id'}`);
    this.check(`${name}: envelope`, 'promise', 'code, message, request_id strings; x-request-id = request_id', problems.length === 0 ? 'as expected' : problems.join('; '), problems.length === 0);
  }
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined';
}

/** One conformance scenario with its script: a short run over the public client. */
export interface ScenarioScript extends Scenario {
  /** The script. */
  run(ctx: ScenarioContext): Promise<void>;
}
