/**
 * The Durable Objects runtime in process, for tests of `pix-usdt/durable-object`'s own logic
 * without workerd: namespaces whose objects are made on first use over an in-memory SQLite each
 * (the server's libsql driver behind `ctx.storage.sql.exec`), alarms recorded rather than fired.
 * test/package/durable-object.test.ts proves the same code on workerd from the tarball.
 */
import type { DurableObjectBinding, DurableObjectContext, DurableObjectIdLike, SandboxWorkerEnv } from '../../src/durable-object/index.js';
import { Directory, TenantObject } from '../../src/durable-object/index.js';
import type { SqlValue } from '../../src/sandbox/index.js';
import { openSqlite } from '../../src/server/data/driver.js';

interface Instance {
  fetch(request: Request): Promise<Response>;
}

function context(id: DurableObjectIdLike, pending: Array<Promise<unknown>>): DurableObjectContext {
  const db = openSqlite(':memory:');
  return {
    id,
    storage: {
      sql: {
        exec(query: string, ...bindings: SqlValue[]) {
          const reads = /^\s*(SELECT|WITH|PRAGMA)\b/i.test(query) || /\bRETURNING\b/i.test(query);
          const rows = reads ? db.all(query, bindings) : (db.run(query, bindings), []);
          return { toArray: () => rows };
        },
      },
      transactionSync: <T>(fn: () => T): T => {
        let out!: T;
        db.transaction(() => {
          out = fn();
        });
        return out;
      },
      setAlarm: () => Promise.resolve(),
    },
    waitUntil: (promise) => void pending.push(promise.catch(() => undefined)),
  };
}

function namespace(make: (ctx: DurableObjectContext) => Instance, pending: Array<Promise<unknown>>): DurableObjectBinding {
  const objects = new Map<string, Instance>();
  const idOf = (value: string): DurableObjectIdLike => ({ toString: () => value });
  return {
    idFromName: (name) => idOf(`name:${name}`),
    idFromString: (value) => idOf(value),
    newUniqueId: () => idOf(crypto.randomUUID().replaceAll('-', '')),
    get(id) {
      const key = id.toString();
      return {
        fetch: async (request) => {
          let object = objects.get(key);
          if (object === undefined) objects.set(key, (object = make(context(id, pending))));
          return object.fetch(request);
        },
      };
    },
  };
}

/** The bindings of a deployment in process, and the work its objects left running (`settled()` waits for it). */
export function inProcessDeployment(vars: Partial<SandboxWorkerEnv> = {}): { env: SandboxWorkerEnv; settled(): Promise<void> } {
  const pending: Array<Promise<unknown>> = [];
  const env = { ...vars } as SandboxWorkerEnv;
  env.TENANTS = namespace((ctx) => new TenantObject(ctx, env), pending);
  env.DIRECTORY = namespace((ctx) => new Directory(ctx, env), pending);
  return { env, settled: async () => void (await Promise.all(pending.splice(0))) };
}
