/**
 * The answer models (src/models/answers.ts: every response schema, and zod with them), loaded
 * once, beside the first request that will check an answer. A browser app's first script so
 * carries the client alone (issue 22: 9 kB, against 15 kB with the models and zod in it), the
 * models arrive while the first request is in flight, and a client with `validation: 'off'`
 * never loads them. In the Node build they are bundled in and only initialized then
 * (docs/decisions.md, "Packaging").
 * @module
 */
import type * as z from 'zod/mini';
import type { AnswerModels } from '../models/answers.js';

export type { AnswerModels } from '../models/answers.js';

/** Picks the model of an answer from the answer models: `(m) => m.User`; `null` for an empty answer (204). */
export type PickModel<T> = ((models: AnswerModels) => z.ZodMiniType<T>) | null;

let loaded: AnswerModels | undefined;
let loading: Promise<AnswerModels> | undefined;

/**
 * The answer models: at once when loaded, else a promise of them, shared by every caller until
 * it settles. A failed load is forgotten, so that the next request tries again.
 */
export function answerModels(): AnswerModels | Promise<AnswerModels> {
  if (loaded !== undefined) return loaded;
  loading ??= import('../models/answers.js').then(
    (module) => (loaded = module.ANSWER_MODELS),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
