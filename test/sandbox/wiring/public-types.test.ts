/**
 * The public declarations of `pix-usdt/sandbox` and `pix-usdt/sandbox/msw` (dist/*.d.ts after
 * `npm run build`, with every chunk they import) name no internal class or type: the platform,
 * the app, the plugins and the records behind them can change without a breaking type change.
 * A tenant in a snapshot or a tenant document is opaque (`TenantSnapshot`): no record type of
 * the sandbox (users, quotes, keys, idempotency records as it stores them) is published.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = fileURLToPath(new URL('../../../dist/', import.meta.url));
const INTERNAL = [
  ...['Engine', 'Platform', 'App', 'WebhookService', 'FaultInjector', 'TenantState', 'RouteDef', 'RouteContext', 'AppCall', 'TrieRouter', 'Clock', 'Receivers', 'WebhookStores', 'World', 'Scope'],
  // The records a snapshot holds, and the stored wiring behind createStoredSandbox.
  ...['UserRec', 'QuoteRec', 'ConversionRec', 'TransactionRec', 'KeyRec', 'IdempotencySnapshot', 'TenantRecords', 'SnapshotRecords', 'TenantDocumentRecords'],
  ...['SandboxImpl', 'StoredSandboxImpl', 'Persistence', 'SqlStorage', 'SandboxStorage', 'TenantCodec'],
];

/** The text of a declaration file and of every relative file it imports, transitively. */
function closure(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    const text = readFileSync(file, 'utf8');
    seen.set(file, text);
    for (const m of text.matchAll(/from '(\.\/[^']+)'/g)) visit(join(dirname(file), (m[1] as string).replace(/\.js$/, '.d.ts')));
  };
  visit(entry);
  return seen;
}

function declared(text: string): string[] {
  return [...text.matchAll(/^(?:declare |export )*(?:abstract )?(?:class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gm)].map((m) => m[1] as string);
}

describe.each(['sandbox.d.ts', 'sandbox-msw.d.ts'])('dist/%s', (name) => {
  const entry = join(DIST, name);

  it('exists (npm run build)', () => {
    expect(existsSync(entry)).toBe(true);
  });

  it('declares no internal class or type, in itself or the chunks it imports', () => {
    const files = closure(entry);
    const names = [...files.values()].flatMap(declared);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((n) => INTERNAL.includes(n))).toEqual([]);
    const classes = [...files.values()].flatMap((t) => [...t.matchAll(/declare class\s+(\w+)/g)].map((m) => m[1]));
    // The public error classes a partner (or a host of a stored sandbox) catches; every other class is internal.
    expect(classes.filter((c) => !['ApiError', 'SandboxClosedError', 'TenantDocumentError', 'StorageError'].includes(c as string))).toEqual([]);
  });
});
