/**
 * Capabilities an API key can carry, and which endpoint needs which (docs/decisions.md).
 * @module
 */

/** Every capability the sandbox knows. */
export const CAPABILITIES = [
  'api_keys:read',
  'api_keys:write',
  'users:read',
  'users:create',
  'users:write',
  'quotes:read',
  'quotes:write',
  'conversions:read',
  'conversions:write',
  'transactions:read',
  'transactions:write',
  'webhooks:read',
  'webhooks:write',
  'sandbox:control',
] as const;

/** A capability. */
export type Capability = (typeof CAPABILITIES)[number];

/** The capabilities of a default key: all of them, except `sandbox:control` in production. */
export function defaultCapabilities(environment: 'sandbox' | 'production'): Capability[] {
  return CAPABILITIES.filter((c) => environment === 'sandbox' || c !== 'sandbox:control');
}
