// The conversion mirror and the ledger: one function applies a snapshot of a conversion (from a
// webhook, an API answer or the reconciliation job) inside the caller's transaction, and writes
// what follows from a move (a ledger entry on completion, a standby decision on standby).
import type { Conversion } from 'pix-usdt';
import { type SqlClient, shouldApplySnapshot } from 'pix-usdt/webhooks/receiver';

/** Who wrote a snapshot. */
export type Writer = 'api' | 'webhook' | 'reconcile';

/** What applying a snapshot did. */
export type Applied = 'inserted' | 'updated' | 'unchanged' | 'stale';

/** The columns of the mirror, in the order of the upsert. */
export const MIRROR_FIELDS = [
  'transaction_type',
  'status',
  'expected_source_amount',
  'received_amount',
  'source_currency',
  'target_amount',
  'target_currency',
  'standby_reason',
  'failure_reason',
  'liquidation_quote_id',
  'pix_qr_code',
  'deposit_address',
  'completed_at',
  'created_at',
  'updated_at',
] as const;

/** Standby reasons the rule liquidates: money the user meant to send, in a different amount or late. */
const LIQUIDATE: ReadonlySet<string> = new Set(['under_funded', 'late_post_window', 'window_expired']);

/**
 * The standby rule: liquidate what arrived (at the price of the moment) when the user sent less
 * than asked, or late; hold for a manual refund what is not what the user meant (too much, twice,
 * to the wrong address). The platform offers no cancel in standby: a held conversion is refunded
 * by operations, outside the platform, and the platform abandons it after 7 days.
 */
export function standbyDecision(conversion: Pick<Conversion, 'standby_reason'>): 'liquidate' | 'hold' {
  return LIQUIDATE.has(conversion.standby_reason ?? '') ? 'liquidate' : 'hold';
}

const now = (): string => new Date().toISOString();

/**
 * Applies a snapshot of a conversion to the mirror, in `tx`, unless the mirror already holds a
 * newer one. On the move to `completed`, writes the ledger entry; on the move to `standby`,
 * queues the rule's decision. Both are keyed by conversion, so a move seen twice (a webhook and a
 * reconciliation) writes once.
 */
export async function applyConversion(tx: SqlClient, c: Conversion, writer: Writer): Promise<Applied> {
  const found = await tx.query('SELECT status, updated_at FROM conversions WHERE id = $1 FOR UPDATE', [c.id]);
  const stored = found.rows[0] as { status: string; updated_at: string } | undefined;
  if (!shouldApplySnapshot('conversion', stored, c)) {
    return stored !== undefined && stored.status === c.status && stored.updated_at === c.updated_at ? 'unchanged' : 'stale';
  }
  const owner = await tx.query('SELECT id FROM users WHERE platform_user_id = $1', [c.user_id]);
  const userId = (owner.rows[0] as { id: string } | undefined)?.id ?? null;
  const values = MIRROR_FIELDS.map((field) => (c as Record<string, unknown>)[field] ?? null);
  const columns = ['id', 'user_id', 'platform_user_id', ...MIRROR_FIELDS, 'written_by'];
  const params = [c.id, userId, c.user_id, ...values, writer];
  await tx.query(
    `INSERT INTO conversions (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})
     ON CONFLICT (id) DO UPDATE SET ${columns.slice(1).map((name) => `${name} = EXCLUDED.${name}`).join(', ')}`,
    params,
  );
  if (c.status === 'completed' && stored?.status !== 'completed') {
    const onramp = c.transaction_type === 'pix_onramp';
    await tx.query(
      `INSERT INTO ledger_entries (conversion_id, user_id, kind, currency, amount, written_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (conversion_id) DO NOTHING`,
      [c.id, userId, onramp ? 'usdt_credit' : 'brl_payout', c.target_currency, c.target_amount, writer, now()],
    );
  }
  if (c.status === 'standby' && stored?.status !== 'standby') {
    const decision = standbyDecision(c);
    await tx.query(
      `INSERT INTO standby_actions (conversion_id, reason, decision, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT (conversion_id) DO NOTHING`,
      [c.id, c.standby_reason ?? null, decision, decision === 'hold' ? 'held' : 'pending', now()],
    );
  }
  return stored === undefined ? 'inserted' : 'updated';
}
