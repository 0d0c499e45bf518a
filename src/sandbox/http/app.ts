/**
 * The HTTP app over the platform: routes, the stages a request runs through, and the runner.
 * It imports core; core never imports it. Plugins hand it their routes and stages at creation.
 * @module
 */
import type { Platform } from '../core/platform.js';
import type { KeyRec, TenantState } from '../core/state.js';
import { ApiError } from '../core/errors.js';
import { type Answer, type ApartAnswer, type AppCall, type HeaderReader, type Incoming, type Middleware, type NamedStage, type RouteInput, type RoutedCall, type StageInsert, type ValidatedCall, type AuthenticatedCall, errorAnswer, incomingOf, toResponse, upperMethod } from './call.js';
import { type Resume, STAGES, inOrder } from './stages.js';
import { type Arrival, RequestLog } from './request-log.js';
import { TrieRouter } from './router.js';
import type { RouteDef } from './routes/types.js';

/** What an app is made of besides the platform. */
export interface AppParts {
  /** Every route (core and plugins), in registration order. */
  routes: readonly RouteDef[];
  /** Plugin stages, each inserted before the stage it names. */
  stages?: readonly StageInsert[];
  /** Which fault plan answered, read from an answer's headers (the faults plugin knows its marks). */
  faultOf?: (headers: Record<string, string>) => string | null;
  /** Answered requests the log keeps (default 1,000). */
  requestLogSize?: number;
}

// One object from arrival to answer: the stages narrow it as they go (`authenticated`, `routed`,
// `validated` set what a stage found and say so to the types), and a middleware's `Call` is the
// same object. Its fields start empty, in the shape they end in.
class RequestCall implements AppCall {
  readonly headers: HeaderReader;
  readonly method: string;
  readonly path: string;
  readonly search: string;
  tenant: TenantState | null = null;
  key: KeyRec | null = null;
  route: RouteDef | null = null;
  input: RouteInput | null = null;
  params: Record<string, string> = {};
  bodyText = '';
  at = 0;
  #request: Request | undefined;

  constructor(
    readonly app: App,
    readonly incoming: Incoming,
    readonly requestId: string,
  ) {
    this.headers = incoming.headers;
    this.method = upperMethod(incoming.method);
    this.path = incoming.path;
    this.search = incoming.search;
  }

  get platform(): Platform {
    return this.app.platform;
  }

  get tenantId(): string | null {
    return this.tenant?.id ?? null;
  }

  get keyId(): string | null {
    return this.key?.id ?? null;
  }

  get request(): Request {
    return (this.#request ??= this.incoming.toRequest());
  }

  match(method: string, path: string): { handler: RouteDef; params: Record<string, string> } | null {
    return this.app.router.match(method, path);
  }

  authenticated(tenant: TenantState, key: KeyRec, at: number): asserts this is AuthenticatedCall {
    this.tenant = tenant;
    this.key = key;
    this.at = at;
  }

  routed(route: RouteDef, params: Record<string, string>): asserts this is RoutedCall {
    this.route = route;
    this.params = params;
  }

  validated(input: RouteInput): asserts this is ValidatedCall {
    this.input = input;
  }
}

/**
 * Called once a request of a tenant has its answer, before the answer leaves: a stored sandbox
 * commits what changed there (src/sandbox/stored.ts). A returned promise holds the answer until
 * it settles; an error (thrown or rejected) replaces the answer with its envelope.
 */
export type CommitHook = (tenant: TenantState) => Promise<void> | undefined;

/** Request in, answer out, over one platform. */
export class App {
  /** See {@link CommitHook}; unset (in process), a mutation costs nothing more. */
  onCommit: CommitHook | undefined;
  readonly router = new TrieRouter<RouteDef>();
  /** The routes it serves, in registration order. */
  readonly routes: RouteDef[] = [];
  readonly #stages: NamedStage[] = [...STAGES];
  /** The stages that are not the app's own (plugins', `use`'s): while each is idle, {@link inOrder} runs the app's. */
  readonly #inserted: NamedStage[] = [];
  /** Where each stage is in {@link App.#stages}, for {@link inOrder} to go on in the runner. */
  readonly #index = new Map<string, number>();
  /** The request log: the app records every request it answers (the inspector, a server's stderr line and log feed read it). */
  readonly requests: RequestLog;
  readonly #faultOf: (headers: Record<string, string>) => string | null;

  constructor(
    readonly platform: Platform,
    parts: AppParts,
  ) {
    this.requests = new RequestLog(parts.requestLogSize);
    for (const route of parts.routes) {
      if (route.sandboxOnly && platform.settings.environment === 'production') continue;
      this.router.add(route.method, route.path, route);
      this.routes.push(route);
    }
    for (const stage of parts.stages ?? []) this.#insert(stage, stage.before);
    this.#indexStages();
    this.#faultOf = parts.faultOf ?? (() => null);
  }

  /** Inserts a stage before a named one (default: before `idempotency`; unknown: before `execute`). */
  use(name: string, run: Middleware, before = 'idempotency'): void {
    this.#insert({ name, run }, before);
  }

  // A public stage takes the public `Call`, which every call of the app is: it may go anywhere.
  #insert(stage: NamedStage, before: string): void {
    const at = this.#stages.findIndex((m) => m.name === before);
    this.#stages.splice(at < 0 ? this.#stages.length - 1 : at, 0, stage);
    this.#inserted.push(stage);
    this.#indexStages();
  }

  #indexStages(): void {
    this.#index.clear();
    // The first of a name: a middleware may reuse one of the app's names, and the app's own come first.
    for (const [i, stage] of this.#stages.entries()) if (!this.#index.has(stage.name) || STAGES.includes(stage)) this.#index.set(stage.name, i);
  }

  // No stage but the app's own will run: every inserted one is idle (a fault stage while no plan is in force).
  #quiet(): boolean {
    for (const stage of this.#inserted) if (stage.idle?.() !== true) return false;
    return true;
  }

  readonly #resume: Resume = (call, stage, past = false) => this.#from(call as RequestCall, (this.#index.get(stage) as number) + (past ? 1 : 0));
  readonly #quietNow = (): boolean => this.#quiet();

  /** Handles one web Request (`sandbox.handle`: msw, the server). */
  handle(request: Request): Promise<Response> {
    return this.dispatch(incomingOf(request)).then(toResponse);
  }

  /**
   * Handles one request; the answer carries `x-request-id` (a replay: the first request's).
   * `arrival`: when a host received it and the method it was sent with, for the request log.
   */
  dispatch(incoming: Incoming, arrival?: Arrival): Promise<Answer> {
    const answer = this.answer(incoming, arrival);
    return answer instanceof Promise ? answer : Promise.resolve(answer);
  }

  /**
   * {@link dispatch}, with the answer itself when every stage answered at once (a GET, a replay,
   * most mutations in memory): a host that can write it at once (the Node server) saves the turns
   * of the event loop a promise costs.
   */
  answer(incoming: Incoming, arrival?: Arrival): Answer | Promise<Answer> {
    const requestId = this.platform.random.uuidHex('req_');
    // The log's clock and entry only when someone reads the log (an inspector, a server).
    const started = this.requests.recording ? (arrival?.at ?? performance.now()) : 0;
    const call = new RequestCall(this, incoming, requestId);
    let answer: Answer | Promise<Answer>;
    try {
      // The app's stages in order, without the loop, when nothing else would run (stages.ts).
      answer = this.#quiet() ? inOrder(call, this.#resume, this.#quietNow) : this.#from(call, 0);
    } catch (error) {
      answer = errorAnswer(error, requestId);
    }
    if (!(answer instanceof Promise)) return this.#committed(call, answer, started, arrival);
    return answer.then(
      (a) => this.#committed(call, a, started, arrival),
      (error: unknown) => this.#committed(call, errorAnswer(error, requestId), started, arrival),
    );
  }

  // The commit hook's wait (a stored sandbox), then the log and the answer as it leaves.
  #committed(call: RequestCall, answer: Answer, started: number, arrival: Arrival | undefined): Answer | Promise<Answer> {
    if (this.onCommit !== undefined && call.tenant !== null) {
      let durable: Promise<void> | undefined;
      try {
        durable = this.onCommit(call.tenant);
      } catch (error) {
        return this.#leaving(call, errorAnswer(error, call.requestId), started, arrival);
      }
      if (durable !== undefined) {
        return durable.then(
          () => this.#leaving(call, answer, started, arrival),
          (error: unknown) => this.#leaving(call, errorAnswer(error, call.requestId), started, arrival),
        );
      }
    }
    return this.#leaving(call, answer, started, arrival);
  }

  #leaving(call: RequestCall, answer: Answer, started: number, arrival: Arrival | undefined): Answer {
    if (this.requests.recording) this.#log(call, answer, started, arrival?.method);
    // The host puts the request id in front as it writes the headers: no copy of them here.
    if (arrival?.requestIdApart === true) {
      const apart: ApartAnswer = { status: answer.status, body: answer.body, headers: answer.headers, requestId: call.requestId };
      return apart;
    }
    // A replayed answer keeps the x-request-id of the request that produced it (http/idempotency.ts).
    const headers: Record<string, string> = { 'x-request-id': call.requestId };
    const own = answer.headers;
    for (const name in own) headers[name] = own[name] as string;
    return { status: answer.status, body: answer.body, headers };
  }

  #log(call: RequestCall, answer: Answer, arrived: number, method = call.method): void {
    const ids: string[] = [];
    const { params } = call;
    let last: string | undefined;
    for (const name in params) ids.push((last = params[name] as string));
    // The id of the object answered (a read's: its path's last id, checked without parsing), unless the path named it already.
    const bodyId = this.requests.idOf(answer.status, answer.body, last);
    if (bodyId !== null && !ids.includes(bodyId)) ids.push(bodyId);
    const { headers } = answer;
    this.requests.record(
      // What the caller sees: a replay keeps the id of the request that produced the answer.
      headers['x-request-id'] ?? call.requestId,
      call.tenantId,
      method,
      call.path,
      answer.status,
      arrived,
      headers['idempotent-replayed'] === 'true',
      this.#faultOf(headers),
      ids,
    );
  }

  // Checks run in a loop and leave the stack; only stages that wrap the rest (idempotency,
  // execute, `use` middlewares) stay on it, and an idle plugin stage is skipped. A check hands on
  // the call it was given, narrowed (the same object), or a promise of it: anything else is waited
  // for (not `instanceof Promise`: a body read by another realm's fetch, as under jest, is a
  // promise of that realm). The app's own stages may answer at once, and then so does this (it
  // throws what they throw); a public middleware gets and gives promises.
  #from(call: RequestCall, first: number): Answer | Promise<Answer> {
    for (let i = first; ; i++) {
      const stage = this.#stages[i];
      if (!stage) throw new ApiError('not_found', 'No route.');
      if (stage.idle?.() === true) continue;
      if (stage.check) {
        const handed = stage.check(call);
        if (handed !== call) return Promise.resolve(handed).then(() => this.#from(call, i + 1));
        continue;
      }
      const next = i + 1;
      if (stage.wrap) return stage.wrap(call, () => this.#from(call, next));
      return Promise.resolve(stage.run(call, () => this.#promised(call, next)));
    }
  }

  #promised(call: RequestCall, first: number): Promise<Answer> {
    try {
      return Promise.resolve(this.#from(call, first));
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
