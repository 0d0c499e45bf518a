/**
 * The parts of the Workers runtime this entry uses, as structural types: the published
 * declarations need neither `@cloudflare/workers-types` nor the `cloudflare:workers` module, and
 * the runtime's own objects (and those types, for a project that has them) fit them.
 * docs/decisions.md ("pix-usdt/durable-object") says why the classes have no runtime base class.
 * @module
 */
import type { SqlValue } from '../sandbox/index.js';

/** An object's id: the runtime's `DurableObjectId`. */
export interface DurableObjectIdLike {
  /** The id as a string (64 hex digits). */
  toString(): string;
}

/** A stub of an object: the runtime's `DurableObjectStub` (its `fetch` is the one used here). */
export interface DurableObjectStubLike {
  /** Sends a request to the object's `fetch`. */
  fetch(request: Request): Promise<Response>;
}

/** A Durable Object namespace binding (`env.TENANTS`): the runtime's `DurableObjectNamespace`. */
export interface DurableObjectBinding {
  /** The id of the object named `name` (always the same object). */
  idFromName(name: string): DurableObjectIdLike;
  /** An id from its string form. */
  idFromString(id: string): DurableObjectIdLike;
  /** A new object's id. */
  newUniqueId(): DurableObjectIdLike;
  /** A stub of the object with this id. */
  get(id: DurableObjectIdLike): DurableObjectStubLike;
}

/** What the runtime hands an object's constructor (`ctx`, the runtime's `DurableObjectState`), in the parts used here. */
export interface DurableObjectContext {
  /** The object's id. */
  readonly id: DurableObjectIdLike;
  /** The object's storage: SQLite (a class declared in `new_sqlite_classes`), and its alarm. */
  readonly storage: {
    /** The object's SQLite database. */
    readonly sql: {
      /** Runs one statement with its bindings, and answers its cursor. */
      exec(query: string, ...bindings: SqlValue[]): {
        /** The statement's rows, objects keyed by column name. */
        toArray(): Array<Record<string, SqlValue>>;
      };
    };
    /** Runs `fn` in one transaction (rolled back when it throws). */
    transactionSync<T>(fn: () => T): T;
    /** Sets the object's one alarm (epoch ms); its `alarm()` runs then. */
    setAlarm(scheduledTime: number): Promise<void>;
  };
  /** Keeps the object alive until `promise` settles (work after the answer has left). */
  waitUntil(promise: Promise<unknown>): void;
}

/** The Worker's bindings (wrangler.toml, or a workerd config). */
export interface SandboxWorkerEnv {
  /** The tenant objects (`class_name = "TenantObject"`). */
  TENANTS: DurableObjectBinding;
  /** The key directory (`class_name = "Directory"`). */
  DIRECTORY: DurableObjectBinding;
  /** The operator's token (a secret: `wrangler secret put CONTROL_TOKEN`): `Authorization: Bearer <it>` creates tenants, the first one included. */
  CONTROL_TOKEN?: string;
  /** Every tenant's settlement delay, in seconds (as `serve --settlement-delay`). */
  SETTLEMENT_DELAY_SECONDS?: string;
  /** Every tenant's quote validity, in seconds. */
  QUOTE_TTL_SECONDS?: string;
  /** Every tenant's deposit window, in seconds. */
  DEPOSIT_WINDOW_SECONDS?: string;
  /** `POST /v1/quotes` per key per minute (`0`: no limit). */
  QUOTE_RATE_LIMIT?: string;
}
