/**
 * The models of every answer the client reads, with zod: the source of the shapes the client
 * checks answers against (./answers-shapes.ts, generated from this module by
 * scripts/answer-shapes.ts; the client itself carries no zod, issue 34). The test that holds the
 * shapes fresh compares the two on every model (test/client/answer-shapes.test.ts).
 *
 * Nothing of the client entry imports this module: a bundler would put every schema and zod into
 * a browser app (test/package/bundle.test.ts measures it).
 * @module
 */
import type * as z from 'zod/mini';
import { listOf, type ListEnvelope } from './common.js';
import { Conversion, Transaction } from './conversions.js';
import {
  ApiKey,
  ApiKeyWithSecret,
  ClockState,
  DeletedWebhookEndpoint,
  EventEnvelope,
  RotatedWebhookSecret,
  Tenant,
  TenantSnapshotDocument,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from './platform.js';
import { Quote } from './quotes.js';
import { KycStatusView, LimitUpgradeRequest, User, WalletBalance } from './users.js';

type Model<T> = z.ZodMiniType<T>;
type ListModel<T> = z.ZodMiniType<ListEnvelope<T>>;

/** The model of each answer the client reads, by name (pages of a listing: `<Model>List`). */
export interface AnswerModels {
  ApiKey: Model<ApiKey>;
  ApiKeyList: ListModel<ApiKey>;
  ApiKeyWithSecret: Model<ApiKeyWithSecret>;
  ClockState: Model<ClockState>;
  Conversion: Model<Conversion>;
  ConversionList: ListModel<Conversion>;
  DeletedWebhookEndpoint: Model<DeletedWebhookEndpoint>;
  EventEnvelopeList: ListModel<EventEnvelope>;
  KycStatusView: Model<KycStatusView>;
  LimitUpgradeRequest: Model<LimitUpgradeRequest>;
  Quote: Model<Quote>;
  QuoteList: ListModel<Quote>;
  RotatedWebhookSecret: Model<RotatedWebhookSecret>;
  Tenant: Model<Tenant>;
  TenantSnapshotDocument: Model<TenantSnapshotDocument>;
  Transaction: Model<Transaction>;
  TransactionList: ListModel<Transaction>;
  User: Model<User>;
  UserList: ListModel<User>;
  WalletBalance: Model<WalletBalance>;
  WebhookDelivery: Model<WebhookDelivery>;
  WebhookDeliveryList: ListModel<WebhookDelivery>;
  WebhookEndpoint: Model<WebhookEndpoint>;
  WebhookEndpointList: ListModel<WebhookEndpoint>;
  WebhookEndpointWithSecret: Model<WebhookEndpointWithSecret>;
}

/** Every answer model (each schema is still built on its first use: ./lazy.ts). */
export const ANSWER_MODELS: AnswerModels = {
  ApiKey,
  ApiKeyList: listOf(ApiKey),
  ApiKeyWithSecret,
  ClockState,
  Conversion,
  ConversionList: listOf(Conversion),
  DeletedWebhookEndpoint,
  EventEnvelopeList: listOf(EventEnvelope),
  KycStatusView,
  LimitUpgradeRequest,
  Quote,
  QuoteList: listOf(Quote),
  RotatedWebhookSecret,
  Tenant,
  TenantSnapshotDocument,
  Transaction,
  TransactionList: listOf(Transaction),
  User,
  UserList: listOf(User),
  WalletBalance,
  WebhookDelivery,
  WebhookDeliveryList: listOf(WebhookDelivery),
  WebhookEndpoint,
  WebhookEndpointList: listOf(WebhookEndpoint),
  WebhookEndpointWithSecret,
};
