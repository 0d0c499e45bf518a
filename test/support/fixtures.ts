/** Fixtures shared by the test suites. */

/** A valid CPF (check digits computed), distinct for every `n` below 100,000. */
export function cpf(n: number): string {
  const base = String(100_000_000 + n * 7919).padStart(9, '0').slice(0, 9);
  const d = [...base].map(Number);
  const dv = (len: number): number => {
    let sum = 0;
    for (let i = 0; i < len; i++) sum += (d[i] as number) * (len + 1 - i);
    return ((sum * 10) % 11) % 10;
  };
  d.push(dv(9));
  d.push(dv(10));
  return d.join('');
}
