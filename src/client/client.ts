/**
 * The `PixUsdt` client: options, events and the resources.
 * @module
 */
import { EventEmitter } from 'eventemitter3';
import { ApiKeys } from '../resources/api-keys.js';
import { Conversions } from '../resources/conversions.js';
import { Quotes } from '../resources/quotes.js';
import { TestHelpers } from '../resources/test-helpers.js';
import { Transactions } from '../resources/transactions.js';
import { Users } from '../resources/users.js';
import { WebhookDeliveries } from '../resources/webhook-deliveries.js';
import { WebhookEndpoints } from '../resources/webhook-endpoints.js';
import { normalizeOptions, type ClientOptions } from './options.js';
import { Transport } from './transport.js';
import type { ClientEvents } from './types.js';

/**
 * The client of the Pix and USDT Conversion Partner API.
 *
 * ```ts
 * const client = new PixUsdt({ apiKey: process.env.PIX_USDT_API_KEY! });
 * const quote = await client.quotes.create({ user_id, source_currency: 'BRL', target_currency: 'USDT',
 *   source_amount: '100.00', destination_wallet_address, destination_wallet_network: 'polygon' });
 * const conversion = await client.quotes.accept(quote.id);
 * ```
 *
 * Every method takes a last optional `{ idempotencyKey?, signal?, timeoutMs?, maxRetries?, deadlineMs? }`.
 * Events: `client.on('request' | 'response' | 'retry' | 'warning', listener)`; they never carry the key.
 */
export class PixUsdt extends EventEmitter<ClientEvents> {
  /** API keys: `list`, `rotate`. */
  readonly apiKeys: ApiKeys;
  /** End customers: `create`, `list`, `retrieve`, `update`, `delete`, `wallet`, `requestLimitUpgrade`. */
  readonly users: Users;
  /** Quotes: `create`, `list`, `retrieve`, `accept`. */
  readonly quotes: Quotes;
  /** Conversions: `list`, `retrieve`, `cancel`, `liquidate`. */
  readonly conversions: Conversions;
  /** Settlement legs: `create`, `list`, `retrieve`. */
  readonly transactions: Transactions;
  /** Webhook endpoints: `create`, `list`, `retrieve`, `update`, `delete`, `rotateSecret`, `listDeliveries`. */
  readonly webhookEndpoints: WebhookEndpoints;
  /** Webhook deliveries: `retrieve`, `redeliver`. */
  readonly webhookDeliveries: WebhookDeliveries;
  /** Sandbox-only helpers (`/v1/test_helpers/*`). */
  readonly testHelpers: TestHelpers;
  readonly #transport: Transport;

  /** Throws `InvalidOptionsError` on a missing or malformed key, a non-https base URL, or a live key in a browser. */
  constructor(options: ClientOptions) {
    super();
    const transport = new Transport(normalizeOptions(options), this);
    this.#transport = transport;
    this.apiKeys = new ApiKeys(transport);
    this.users = new Users(transport);
    this.quotes = new Quotes(transport);
    this.conversions = new Conversions(transport);
    this.transactions = new Transactions(transport);
    this.webhookEndpoints = new WebhookEndpoints(transport);
    this.webhookDeliveries = new WebhookDeliveries(transport);
    this.testHelpers = new TestHelpers(transport);
  }

  /** The base URL in use (from the key prefix, or `baseUrl`). */
  get baseUrl(): string {
    return this.#transport.toJSON()['baseUrl'] as string;
  }

  /** The settings in use, never the key. */
  toJSON(): Record<string, unknown> {
    return { name: 'PixUsdt', ...this.#transport.toJSON() };
  }
}
