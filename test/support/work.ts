/**
 * Work counted rather than timed (tests hold no timed assertions): how many times `fn` fills an
 * array, whatever the machine's speed.
 */

/** Counts the calls of `Array.prototype.push` while `fn` runs. */
export function pushesDuring<T>(fn: () => T): { result: T; pushes: number } {
  const push = Array.prototype.push;
  let pushes = 0;
  Array.prototype.push = function (this: unknown[], ...items: unknown[]): number {
    pushes++;
    return push.apply(this, items);
  };
  try {
    return { result: fn(), pushes };
  } finally {
    Array.prototype.push = push;
  }
}
