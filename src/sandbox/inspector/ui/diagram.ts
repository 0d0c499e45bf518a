// The conversion state diagram, drawn from the machine's rows (the table docs/state-machines.md
// renders with Mermaid): states ranked by their longest distance from the creation, one column
// per rank, one arrow per (from, to) pair; the path taken is drawn bold, the current state filled.
interface Row {
  from: string | null;
  trigger: string;
  to: string;
  event: string | null;
}

type Html = (strings: TemplateStringsArray, ...values: unknown[]) => unknown;

const W = 150;
const H = 34;
const GAP_X = 56;
const GAP_Y = 18;

/** Columns of states: rank = longest path from the creation (self-loops ignored). */
export function layout(rows: readonly Row[]): Map<string, { x: number; y: number }> {
  const rank = new Map<string, number>();
  for (const r of rows) if (r.from === null) rank.set(r.to, 0);
  for (let pass = 0; pass < rows.length; pass++) {
    let changed = false;
    for (const r of rows) {
      if (r.from === null || r.from === r.to) continue;
      const from = rank.get(r.from);
      if (from === undefined) continue;
      if ((rank.get(r.to) ?? -1) < from + 1) {
        rank.set(r.to, from + 1);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const columns: string[][] = [];
  for (const [state, r] of rank) (columns[r] ??= []).push(state);
  // Fewer crossings: each column in the order of the mean row of the states that lead into it.
  const row = new Map<string, number>();
  columns.forEach((states, c) => {
    if (c > 0) {
      const weight = (s: string): number => {
        const from = rows.filter((r) => r.to === s && r.from !== null && r.from !== s && row.has(r.from)).map((r) => row.get(r.from as string) as number);
        return from.length === 0 ? Infinity : from.reduce((a, b) => a + b, 0) / from.length;
      };
      const weights = new Map(states.map((s) => [s, weight(s)]));
      states.sort((a, b) => (weights.get(a) as number) - (weights.get(b) as number));
    }
    states.forEach((s, i) => row.set(s, i));
  });
  const out = new Map<string, { x: number; y: number }>();
  columns.forEach((states, c) => states.forEach((s, i) => out.set(s, { x: 10 + c * (W + GAP_X), y: 10 + i * (H + GAP_Y) })));
  return out;
}

export function diagram(html: Html, rows: readonly Row[], path: readonly string[], current: string): unknown {
  const at = layout(rows);
  const taken = new Set<string>();
  for (let i = 1; i < path.length; i++) taken.add(`${path[i - 1]}>${path[i]}`);
  const visited = new Set(path);
  const pairs = new Map<string, Row[]>();
  for (const r of rows) if (r.from !== null && r.from !== r.to) pairs.set(`${r.from}>${r.to}`, [...(pairs.get(`${r.from}>${r.to}`) ?? []), r]);
  let width = 0;
  let height = 0;
  for (const p of at.values()) {
    width = Math.max(width, p.x + W + 10);
    height = Math.max(height, p.y + H + 10);
  }
  const edges = [...pairs].map(([key, list]) => {
    const [from, to] = key.split('>') as [string, string];
    const a = at.get(from);
    const b = at.get(to);
    if (!a || !b) return null;
    const sameColumn = a.x === b.x;
    const x1 = sameColumn ? a.x + W / 2 : a.x + W;
    const y1 = sameColumn ? a.y + (b.y > a.y ? H : 0) : a.y + H / 2;
    const x2 = sameColumn ? b.x + W / 2 : b.x;
    const y2 = sameColumn ? b.y + (b.y > a.y ? 0 : H) : b.y + H / 2;
    const on = taken.has(key);
    const label = list.map((r) => `${r.trigger} / ${r.event ?? 'no event'}`).join('; ');
    return html`<line x1=${x1} y1=${y1} x2=${x2} y2=${y2} class=${on ? 'edge taken' : 'edge'} marker-end=${on ? 'url(#arrow-on)' : 'url(#arrow)'}><title>${from} → ${to}: ${label}</title></line>`;
  });
  const nodes = [...at].map(([state, p]) => {
    const cls = state === current ? 'node current' : visited.has(state) ? 'node visited' : 'node';
    return html`<g class=${cls} data-state=${state}>
      <rect x=${p.x} y=${p.y} width=${W} height=${H} rx="6" />
      <text x=${p.x + W / 2} y=${p.y + H / 2 + 5} text-anchor="middle">${state}</text>
    </g>`;
  });
  const description = `Conversion state diagram. Current state: ${current}. Path: ${path.join(', ')}.`;
  return html`<svg class="diagram" role="img" aria-label=${description} viewBox=${`0 0 ${width} ${height}`} width=${width} height=${height}>
    <defs>
      <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#6b7280" /></marker>
      <marker id="arrow-on" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0 L10 5 L0 10 z" fill="#1d4ed8" /></marker>
    </defs>
    ${edges}${nodes}
  </svg>`;
}
