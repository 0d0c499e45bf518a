/**
 * /v1/transactions: create, list, retrieve.
 * @module
 */
import { CreateTransactionBody, ListTransactionsParams } from '../../../models/index.js';
import { transactionOut } from '../../core/wire.js';
import { listPage, userAndStatus } from '../list.js';
import { createTransaction, getTransaction } from '../../core/transactions.js';
import { IdParams } from './shared.js';
import { type RouteDef, define, ok, recordOk, recordReply } from './types.js';
import { TRANSACTION } from '../../core/versions.js';

/** Transaction routes. */
export const TRANSACTION_ROUTES: RouteDef[] = [
  define({
    method: 'POST',
    path: '/v1/transactions',
    capability: 'transactions:write',
    body: CreateTransactionBody,
    handler: ({ platform, tenant, at, body }) => recordReply(platform, 201, TRANSACTION, createTransaction({ world: platform, tenant, at }, body.quote_id)),
  }),
  define({
    method: 'GET',
    path: '/v1/transactions',
    capability: 'transactions:read',
    query: ListTransactionsParams,
    handler: ({ platform, tenant, query }) => ok(listPage(platform, tenant.transactions, 'transactions', query, userAndStatus(query), transactionOut)),
  }),
  define({
    method: 'GET',
    path: '/v1/transactions/:id',
    capability: 'transactions:read',
    params: IdParams,
    handler: ({ platform, tenant, params }) => recordOk(platform, TRANSACTION, getTransaction(tenant, params.id)),
  }),
];
