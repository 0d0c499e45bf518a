export { ApiKeys } from './api-keys.js';
export { Users } from './users.js';
export { Quotes } from './quotes.js';
export { Conversions } from './conversions.js';
export { Transactions } from './transactions.js';
export { WebhookEndpoints } from './webhook-endpoints.js';
export { WebhookDeliveries } from './webhook-deliveries.js';
export {
  TestHelpers,
  ConversionTestHelpers,
  TransactionTestHelpers,
  UserTestHelpers,
  TenantTestHelpers,
  ClockTestHelpers,
  EventTestHelpers,
} from './test-helpers.js';
