/**
 * Schemas composed from src/models for path parameters and body-less mutations.
 * @module
 */
import * as z from 'zod/mini';
import { Uuid } from '../../../models/index.js';

/** Path `{id}`: a UUID. */
export const IdParams = z.object({ id: Uuid });
/** A mutation that takes no field (an empty object or no body at all). */
export const NoBody = z.strictObject({});
