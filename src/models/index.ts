/**
 * Zod schemas (from `zod/mini`) and inferred types for every resource, request body and
 * query of the API. A schema and its type share a name.
 * @module
 */
export * from './common.js';
export * from './issues.js';
export * from './users.js';
export * from './quotes.js';
export * from './conversions.js';
export * from './platform.js';
