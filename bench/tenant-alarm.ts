// Timers of every tenant (issue 13): the cost of keeping every real-time tenant on time must not
// grow with the number of idle tenants. Side by side, with 1 and with 100,000 idle tenants:
// - scheduling a timer (what every quote, conversion and delivery does): ns per `schedule`;
// - one wake of the alarm that fires a due timer of one tenant and re-arms: ms per wake.
// Run: npx tsx bench/tenant-alarm.ts
import { build } from '../src/sandbox/sandbox.js';
import { realSleep } from '../src/sandbox/core/real-time.js';

const SCHEDULES = 20_000;
const WAKES = 50;

async function measure(idle: number): Promise<{ idle: number; scheduleNs: number; wakeMs: number; awaiting: number }> {
  const { platform } = build({ seed: `alarm-${idle}` });
  for (let i = 0; i < idle; i++) platform.createTenant();
  const { tenant } = platform.createTenant();
  const far = tenant.clock.nowMs() + 86_400_000;
  let t = performance.now();
  // An unknown kind is ignored when it fires: only the bookkeeping is measured.
  for (let i = 0; i < SCHEDULES; i++) platform.schedule(tenant, far + i, 'bench.none', String(i));
  const scheduleNs = ((performance.now() - t) * 1e6) / SCHEDULES;
  // Wakes: each time a timer 1 ms ahead, and the wait for the alarm to fire it.
  t = performance.now();
  for (let i = 0; i < WAKES; i++) {
    platform.schedule(tenant, tenant.clock.nowMs() + 1, 'bench.none', `w${i}`);
    const before = tenant.clock.pendingTimers;
    while (tenant.clock.pendingTimers >= before) await realSleep(0);
  }
  const wakeMs = (performance.now() - t) / WAKES;
  return { idle, scheduleNs, wakeMs, awaiting: platform.tenantsAwaitingAlarm };
}

const rows = [];
for (const idle of [1, 100_000]) rows.push(await measure(idle));
for (const r of rows) {
  console.log(`${String(r.idle).padStart(7)} idle tenants: schedule ${r.scheduleNs.toFixed(0)} ns, wake ${r.wakeMs.toFixed(2)} ms, tenants waiting for the alarm ${r.awaiting}`);
}
