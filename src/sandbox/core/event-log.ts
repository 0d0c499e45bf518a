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

// The return-override trick: a class whose base constructor returns the object it is given
// installs its private fields on that object (a plain one, of Object.prototype, as before).
class Given {
  constructor(object: object) {
    return object;
  }
}

/**
 * Gives an emitted envelope its `data`: an own enumerable accessor (JSON and copies see it) that
 * builds `{ object }` from the version when first read, a listener's assignment kept instead.
 * Its state is in private fields and its accessor pair is one shared descriptor: an object
 * literal with `get data()`/`set data()` made two closures and took V8's slow path for literals
 * with accessors (about 1 us an event in isolation, against 0.1).
 */
class LazyData extends Given {
  #version: Version;
  #data: SandboxEvent['data'] | undefined = undefined;

  constructor(event: object, version: Version) {
    super(event);
    this.#version = version;
    Object.defineProperty(event, 'data', LazyData.#descriptor);
  }

  static readonly #descriptor: PropertyDescriptor = {
    enumerable: true,
    configurable: true,
    get(this: LazyData): SandboxEvent['data'] {
      return (this.#data ??= { object: this.#version.object() });
    },
    set(this: LazyData, value: SandboxEvent['data']) {
      this.#data = value;
    },
  };
}

/**
 * The envelope emitted for a recorded event: `id`, `type`, `created_at`, then `data`, built from
 * `version` (the record as it was then) only when read. Without a listener that reads it (the
 * webhook plugin serializes the log entry instead), an event builds no wire object.
 */
export function emittedEnvelope(id: string, type: string, createdAt: string, version: Version): SandboxEvent {
  const event = { id, type, created_at: createdAt } as SandboxEvent;
  new LazyData(event, version);
  return event;
}
