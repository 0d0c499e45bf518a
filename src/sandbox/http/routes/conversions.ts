/**
 * /v1/conversions: list, retrieve, cancel, liquidate.
 * @module
 */
import { ListConversionsParams } from '../../../models/index.js';
import { conversionOut } from '../../core/wire.js';
import { applyConversion, getConversion, liquidateConversion } from '../../core/conversions.js';
import { listPage, userAndStatus } from '../list.js';
import { IdParams, NoBody } from './shared.js';
import { type RouteDef, define, ok, recordOk, recordReply } from './types.js';
import { CONVERSION } from '../../core/versions.js';

/** Conversion routes. */
export const CONVERSION_ROUTES: RouteDef[] = [
  define({
    method: 'GET',
    path: '/v1/conversions',
    capability: 'conversions:read',
    query: ListConversionsParams,
    handler: ({ platform, tenant, query }) =>
      ok(
        listPage(
          platform,
          tenant.conversions,
          'conversions',
          query,
          {
            ...userAndStatus(query),
            transaction_type: {
              value: query.transaction_type,
              index: 'transaction_type',
              test: (c) => (c.direction === 'onramp' ? 'pix_onramp' : 'pix_offramp') === query.transaction_type,
            },
          },
          conversionOut,
        ),
      ),
  }),
  define({
    method: 'GET',
    path: '/v1/conversions/:id',
    capability: 'conversions:read',
    params: IdParams,
    handler: ({ platform, tenant, params }) => recordOk(platform, CONVERSION, getConversion(tenant, params.id)),
  }),
  define({
    method: 'POST',
    path: '/v1/conversions/:id/cancel',
    capability: 'conversions:write',
    params: IdParams,
    body: NoBody,
    handler({ platform, tenant, at, params }) {
      const conv = getConversion(tenant, params.id);
      applyConversion({ world: platform, tenant, at }, conv, 'cancel');
      return recordReply(platform, 200, CONVERSION, conv);
    },
  }),
  define({
    method: 'POST',
    path: '/v1/conversions/:id/liquidate',
    capability: 'conversions:write',
    params: IdParams,
    body: NoBody,
    handler({ platform, tenant, at, params }) {
      const conv = getConversion(tenant, params.id);
      liquidateConversion({ world: platform, tenant, at }, conv);
      return recordReply(platform, 200, CONVERSION, conv);
    },
  }),
];
