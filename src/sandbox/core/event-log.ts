/**
 * The entries of a tenant's event log (`TenantState.events`). An event recorded here keeps its
 * `data.object` as a version (core/versions.ts) and rebuilds its envelope on read, the same JSON
 * as emitted; an event restored from a snapshot keeps the envelope it was read from.
 * @module
 */
import type { LoggedEvent, SandboxEvent } from './state.js';
import type { Version } from './versions.js';
import { iso } from './wire.js';

/** An event recorded by this sandbox: its id, type, instant and the version of its object. */
export class PackedEvent implements LoggedEvent {
  constructor(
    readonly id: string,
    readonly type: string,
    readonly at: number,
    readonly version: Version,
  ) {}

  get objectId(): string {
    return this.version.record.id;
  }

  envelope(): SandboxEvent {
    return { id: this.id, type: this.type, created_at: iso(this.at), data: { object: this.version.object() } };
  }

  /** `JSON.stringify` of an entry (a stored tenant's event row) writes the envelope. */
  toJSON(): SandboxEvent {
    return this.envelope();
  }
}

/** An event read from a snapshot, kept as it was read. */
export class RestoredEvent implements LoggedEvent {
  constructor(readonly event: SandboxEvent) {}

  get id(): string {
    return this.event.id;
  }

  get type(): string {
    return this.event.type;
  }

  get objectId(): string {
    const id = (this.event.data.object as { id?: unknown }).id;
    return typeof id === 'string' ? id : '';
  }

  envelope(): SandboxEvent {
    return this.event;
  }

  toJSON(): SandboxEvent {
    return this.event;
  }
}

/**
 * The raw body of a webhook delivery: the JSON of a logged event, rebuilt on each read (the same
 * bytes each time), instead of a kilobyte of text kept per delivery. `JSON.stringify` of a record
 * holding it writes the text.
 */
export class EventJson {
  constructor(readonly event: LoggedEvent) {}

  toString(): string {
    return JSON.stringify(this.event.envelope());
  }

  toJSON(): string {
    return this.toString();
  }
}

// An emitted envelope's own state: a non-enumerable symbol-keyed property (JSON, `Object.keys`,
// spreads, `structuredClone` and `toEqual` do not see it).
const LAZY = Symbol('pix-usdt.lazyData');

interface LazyState {
  readonly version: Version;
  data: SandboxEvent['data'] | undefined;
}

// `data`'s accessor pair, one for every envelope: it reads the state through `this`, so that a
// proxy of the envelope (a reactive store's) reads it too.
const LAZY_DATA: PropertyDescriptor = {
  enumerable: true,
  configurable: true,
  get(this: { [LAZY]: LazyState }): SandboxEvent['data'] {
    const state = this[LAZY];
    return (state.data ??= { object: state.version.object() });
  },
  set(this: { [LAZY]: LazyState }, value: SandboxEvent['data']) {
    this[LAZY].data = value;
  },
};

/**
 * The envelope emitted for a recorded event: a plain object with `id`, `type`, `created_at`, then
 * `data`, an own enumerable accessor (JSON and copies see it) that builds `{ object }` from
 * `version` (the record as it was then) when first read, a listener's assignment kept instead.
 * Without a listener that reads it (the webhook plugin serializes the log entry instead), an
 * event builds no wire object. An object literal with `get data()`/`set data()` made two closures
 * and took V8's slow path for literals with accessors (about 2.2 us an event in isolation on a
 * busy machine, 0.7 this way).
 */
export function emittedEnvelope(id: string, type: string, createdAt: string, version: Version): SandboxEvent {
  const event = { id, type, created_at: createdAt } as SandboxEvent;
  Object.defineProperty(event, LAZY, { value: { version, data: undefined } satisfies LazyState });
  Object.defineProperty(event, 'data', LAZY_DATA);
  return event;
}
