/**
 * What the receiver kit costs per delivery, in process (no HTTP): `constructEvent` alone, then
 * `createWebhookHandler` on the memory store and on the SQL store (PGlite in memory, the handler
 * writing one row in the transaction), each for a new event and for a duplicate. Rounds
 * alternate the cases so that noise hits all of them; each figure is the median round.
 *
 *   node --import tsx bench/receiver.ts [rounds]
 */
import { PGlite } from '@electric-sql/pglite';
import { constructEvent, signPayload } from '../src/webhooks/index.js';
import { createMemoryEventStore, createSqlEventStore, createWebhookHandler, type WebhookHandler } from '../src/webhooks/receiver/index.js';

const SECRET = 'whsec_bench_5f2b8c1d9e0a4b7c8d6e1f2a3b4c5d6e';
const ROUNDS = Number(process.argv[2] ?? 5);
const PER_ROUND = 300;

let n = 0;
async function delivery(id = `evt-${++n}`): Promise<{ body: string; headers: Record<string, string> }> {
  const body = JSON.stringify({ id, type: 'conversion.completed', created_at: new Date().toISOString(), data: { object: { id: `conv-${n}`, status: 'completed', received_amount: '100.00' } } });
  return { body, headers: { 'x-service-signature': await signPayload(body, SECRET), 'x-service-event-id': id } };
}

interface Case {
  name: string;
  run: (d: { body: string; headers: Record<string, string> }) => Promise<unknown>;
  /** Deliveries of one event id, made once, sent again and again (the duplicate path). */
  repeat?: boolean;
}

async function main(): Promise<void> {
  const db = await PGlite.create();
  const sql = createSqlEventStore({ db });
  await sql.migrate();
  await db.query('CREATE TABLE effects (event_id text PRIMARY KEY)');
  const onSql = createWebhookHandler({ secret: SECRET, store: sql, onEvent: (event, { tx }) => tx.query('INSERT INTO effects VALUES ($1)', [event.id]) });
  const onMemory = createWebhookHandler({ secret: SECRET, store: createMemoryEventStore(), onEvent: () => undefined });
  const handle = (h: WebhookHandler) => async (d: { body: string; headers: Record<string, string> }) => {
    const answer = await h.handle({ body: d.body, headers: d.headers });
    if (answer.status !== 200) throw new Error(`answered ${answer.status}`);
  };
  const cases: Case[] = [
    { name: 'constructEvent alone', run: (d) => constructEvent(d.body, d.headers, SECRET) },
    { name: 'createWebhookHandler, memory store, new event', run: handle(onMemory) },
    { name: 'createWebhookHandler, memory store, duplicate', run: handle(onMemory), repeat: true },
    { name: 'createWebhookHandler, SQL store (PGlite), new event', run: handle(onSql) },
    { name: 'createWebhookHandler, SQL store (PGlite), duplicate', run: handle(onSql), repeat: true },
  ];
  const rounds = new Map<string, number[]>(cases.map((c) => [c.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      const repeated = await delivery();
      if (c.repeat) await c.run(repeated);
      const batch = c.repeat ? Array.from({ length: PER_ROUND }, () => repeated) : await Promise.all(Array.from({ length: PER_ROUND }, () => delivery()));
      const started = performance.now();
      for (const d of batch) await c.run(d);
      rounds.get(c.name)?.push((PER_ROUND * 1000) / (performance.now() - started));
    }
  }
  await db.close();
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  console.log('| Case | deliveries/s (median of rounds) |\n|---|---|');
  for (const c of cases) console.log(`| ${c.name} | ${Math.round(median(rounds.get(c.name) as number[])).toLocaleString('en')} |`);
}

await main();
