/**
 * /v1/quotes: create (rate limited), list, retrieve, accept.
 * @module
 */
import { AcceptQuoteBody, CreateQuoteBody, ListQuotesParams } from '../../../models/index.js';
import { quoteOut } from '../../core/wire.js';
import { acceptQuote } from '../../core/conversions.js';
import { listPage, userAndStatus } from '../list.js';
import { createQuote, getQuote } from '../../core/quotes.js';
import { IdParams } from './shared.js';
import { type RouteDef, define, ok, recordOk, recordReply } from './types.js';
import { CONVERSION, QUOTE } from '../../core/versions.js';

/** Quote routes. */
export const QUOTE_ROUTES: RouteDef[] = [
  define({
    method: 'POST',
    path: '/v1/quotes',
    capability: 'quotes:write',
    rateLimited: true,
    body: CreateQuoteBody,
    handler: ({ platform, tenant, at, body }) => recordReply(platform, 201, QUOTE, createQuote({ world: platform, tenant, at }, body)),
  }),
  define({
    method: 'GET',
    path: '/v1/quotes',
    capability: 'quotes:read',
    query: ListQuotesParams,
    handler: ({ platform, tenant, query }) => ok(listPage(platform, tenant.quotes, 'quotes', query, userAndStatus(query), quoteOut)),
  }),
  define({
    method: 'GET',
    path: '/v1/quotes/:id',
    capability: 'quotes:read',
    params: IdParams,
    handler: ({ platform, tenant, params }) => recordOk(platform, QUOTE, getQuote(tenant, params.id)),
  }),
  define({
    method: 'POST',
    path: '/v1/quotes/:id/accept',
    capability: 'quotes:write',
    params: IdParams,
    body: AcceptQuoteBody,
    handler: ({ platform, tenant, at, params }) => recordReply(platform, 201, CONVERSION, acceptQuote({ world: platform, tenant, at }, params.id)),
  }),
];
