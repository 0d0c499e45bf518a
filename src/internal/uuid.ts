/** A random (version 4) UUID, used for Idempotency-Key headers. */
export { v4 as uuidv4 } from 'uuid';
