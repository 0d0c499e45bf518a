/**
 * The webhook plugin's part of a tenant document (`extensions.webhooks`): its endpoints and
 * deliveries, checked with the rest of the tenant (core/tenant-schema.ts) before a fork, a
 * restore or an import takes them.
 * @module
 */
import * as z from 'zod/mini';
import { lazy } from '../../../models/lazy.js';
import { jsonDepth } from '../../core/json-depth.js';
import { Id, Instant, MAX_DOCUMENT_DEPTH, Seq, increasingSeqs, uniqueIds } from '../../core/tenant-schema.js';

// The route's rule for a URL (models/platform.ts): https, or http to a loopback address; at most 2,048 characters.
const URL_FORMAT = /^(https:\/\/[^\s/?#]+[^\s]*|http:\/\/(localhost|127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\])(:\d{1,5})?([/?#][^\s]*)?)$/i;
const SECRET_FORMAT = /^whsec_[A-Za-z0-9]{1,128}$/;

const Endpoint = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    url: z.string().check(z.maxLength(2048), z.regex(URL_FORMAT, 'Must be an https:// URL (or http:// to a loopback address)')),
    status: z.enum(['active', 'disabled']),
    eventTypes: z.array(z.string().check(z.regex(/^([a-z_]+\.[a-z_]+|\*)$/, 'Must be an event kind such as conversion.completed, or *'))),
    description: z.nullable(z.string().check(z.maxLength(500))),
    secret: z.string().check(z.regex(SECRET_FORMAT, 'Must be a webhook secret (whsec_...)')),
    previousSecret: z.nullable(z.string().check(z.regex(SECRET_FORMAT, 'Must be a webhook secret (whsec_...)'))),
    previousSecretExpiresAt: z.nullable(Instant),
    createdAt: Instant,
    updatedAt: Instant,
    deletedAt: z.nullable(Instant),
  }),
);

const Attempt = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    at: Instant,
    status: z.nullable(z.number().check(z.int(), z.gte(100), z.lte(599))),
    latencyMs: z.number().check(z.gte(0), z.lte(86_400_000)),
    error: z.nullable(z.string().check(z.maxLength(2_000))),
  }),
);

const Delivery = /* @__PURE__ */ lazy(() =>
  z.strictObject({
    id: Id,
    seq: Seq,
    endpointId: Id,
    eventId: Id,
    eventType: z.string().check(z.regex(/^[a-z_]+\.[a-z_]+$/, 'Must be an event kind such as conversion.completed')),
    payload: z.string().check(z.refine((p) => jsonDepth(p) <= MAX_DOCUMENT_DEPTH, `Must nest at most ${MAX_DOCUMENT_DEPTH} levels`)),
    status: z.enum(['pending', 'succeeded', 'failed']),
    attempts: z.array(Attempt),
    failures: z.number().check(z.int(), z.gte(0)),
    nextAttemptAt: z.nullable(Instant),
    createdAt: Instant,
    updatedAt: Instant,
  }),
);

/**
 * `extensions.webhooks`: endpoints (never removed: positions dense from 0) and deliveries
 * (finished ones are trimmed: positions increase, with gaps), ids unique, each delivery to an
 * endpoint of the tenant.
 */
export const WebhooksExtension = /* @__PURE__ */ lazy(() =>
  z.strictObject({ endpoints: z.array(Endpoint), deliveries: z.array(Delivery) }).check(
    z.superRefine((value, ctx) => {
      const endpoints = uniqueIds(value.endpoints, 'endpoints', ctx);
      value.endpoints.forEach((e, i) => {
        if (e.seq !== i) ctx.issues.push({ code: 'custom', input: e.seq, path: ['endpoints', i, 'seq'], message: `Must be ${i}: the positions of endpoints are dense from 0 in the order listed` });
      });
      uniqueIds(value.deliveries, 'deliveries', ctx);
      increasingSeqs(value.deliveries, 'deliveries', ctx);
      value.deliveries.forEach((d, i) => {
        if (!endpoints.has(d.endpointId)) ctx.issues.push({ code: 'custom', input: d.endpointId, path: ['deliveries', i, 'endpointId'], message: 'No such endpoint in the tenant' });
      });
    }),
  ),
);
