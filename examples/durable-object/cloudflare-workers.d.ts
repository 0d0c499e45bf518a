// The one import of the Workers runtime this example uses (the whole API: @cloudflare/workers-types).
declare module 'cloudflare:workers' {
  /** Base class of a Durable Object whose methods are callable over RPC from a stub. */
  export abstract class DurableObject<Env = unknown> {
    protected readonly ctx: unknown;
    protected readonly env: Env;
    constructor(ctx: never, env: Env);
  }
}
