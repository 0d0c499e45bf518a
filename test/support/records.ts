/**
 * The records inside a snapshot or a tenant document. The public types keep a tenant opaque
 * (`TenantSnapshot`: its id and clock time); the sandbox's own tests read its records as the
 * sandbox writes them (core/snapshot.ts `TenantRecords`, core/transfer.ts `TenantDocumentRecords`).
 */
import type { SandboxSnapshot, TenantDocument } from '../../src/sandbox/index.js';
import type { SnapshotRecords } from '../../src/sandbox/core/snapshot.js';
import type { TenantDocumentRecords } from '../../src/sandbox/core/transfer.js';

/** A whole snapshot, its tenants' records readable. */
export function snapshotRecords(snapshot: SandboxSnapshot): SnapshotRecords {
  return snapshot as SnapshotRecords;
}

/** A tenant document, its tenant's records readable. */
export function documentRecords(document: TenantDocument): TenantDocumentRecords {
  return document as TenantDocumentRecords;
}
