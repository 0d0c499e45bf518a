/**
 * Reporters of a conformance report: a table for people, JSON for scripts, JUnit XML for CI.
 * @module
 */
import type { Check, ConformanceReport, ScenarioResult, Verdict } from './types.js';

const MARK: Record<Verdict, string> = { pass: 'pass', finding: 'FINDING', fail: 'FAIL', error: 'ERROR', skipped: 'skipped' };

function cell(text: string, width: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return (flat.length > width ? `${flat.slice(0, width - 1)}…` : flat).padEnd(width);
}

/** The rows a scenario shows: every check that is not fine (and every note), or one summary row. */
function rows(result: ScenarioResult): Array<[string, string, string, string]> {
  if (result.verdict === 'skipped') return [[result.id, '', result.reason ?? '', MARK.skipped]];
  const out: Array<[string, string, string, string]> = [];
  const shown = result.checks.filter((c) => !c.ok || c.level === 'note');
  for (const c of shown) out.push([`${result.id} › ${c.name}`, c.expected, c.observed, c.ok ? 'note' : c.level === 'promise' ? MARK.fail : MARK.finding]);
  if (result.verdict === 'error' || (result.verdict === 'fail' && result.reason !== undefined)) out.push([result.id, 'to run to its end', result.reason ?? '', MARK[result.verdict]]);
  // The scenario's own row: how many of its checks held, and its verdict.
  const counted = result.checks.filter((c) => c.level !== 'note');
  const passed = counted.filter((c) => c.ok).length;
  if (counted.length > 0) out.push([result.id, `${counted.length} check${counted.length === 1 ? '' : 's'}`, passed === counted.length ? 'as expected' : `${passed} as expected`, MARK[result.verdict]]);
  return out;
}

/**
 * The human table: scenario (and check), expected, observed, verdict; differences first
 * within each scenario, then a summary line and what the exit code means.
 */
export function formatTable(report: ConformanceReport, options: { width?: number } = {}): string {
  const width = Math.max(options.width ?? 160, 80);
  const w = [Math.floor(width * 0.34), Math.floor(width * 0.26), Math.floor(width * 0.3)];
  const all = report.scenarios.flatMap(rows);
  const line = (r: [string, string, string, string]): string => `${cell(r[0], w[0] as number)} ${cell(r[1], w[1] as number)} ${cell(r[2], w[2] as number)} ${r[3]}`;
  const head = line(['Scenario › check', 'Expected', 'Observed', 'Verdict']);
  const c = report.counts;
  const summary = `${report.scenarios.length} scenarios against ${report.baseUrl} (run ${report.runId}): ${c.pass} pass, ${c.finding} finding, ${c.fail} fail, ${c.error} error, ${c.skipped} skipped.`;
  const where = report.tenant.made ? `In tenant ${report.tenant.id ?? ''}, made for this run: the API key's tenant was not touched.` : `In the API key's tenant${report.tenant.note === undefined ? '' : ` (${report.tenant.note})`}: the run added its users, conversions and webhook endpoints there.`;
  const meaning = report.ok
    ? 'Every promise of the reference holds. FINDING rows are answers where the reference says "not shown" and the platform differs from docs/decisions.md; see docs/parity.md.'
    : 'A promise of the reference differs (FAIL) or a scenario could not finish (ERROR): exit code 1. See docs/parity.md.';
  return [head, '-'.repeat(head.length), ...all.map(line), '', summary, where, meaning, ''].join('\n');
}

/** The report as JSON text (the `--json` output). */
export function formatJson(report: ConformanceReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

function xml(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function describe(checks: readonly Check[]): string {
  return checks.map((c) => `${c.name}: expected ${c.expected}, observed ${c.observed}`).join('\n');
}

/** The report as JUnit XML: one testcase per scenario; findings and notes go to system-out. */
export function formatJunit(report: ConformanceReport): string {
  const c = report.counts;
  const cases = report.scenarios.map((r) => {
    const attrs = `classname="pix-usdt.conformance" name="${xml(`${r.id}: ${r.title}`)}" time="${(r.durationMs / 1000).toFixed(3)}"`;
    const parts: string[] = [];
    if (r.verdict === 'skipped') parts.push(`<skipped message="${xml(r.reason ?? '')}"/>`);
    const failed = r.checks.filter((k) => k.level === 'promise' && !k.ok);
    if (r.verdict === 'fail') parts.push(`<failure message="${xml(failed[0] === undefined ? r.reason ?? 'failed' : `${failed[0].name}: expected ${failed[0].expected}, observed ${failed[0].observed}`)}">${xml([describe(failed), r.reason ?? ''].filter(Boolean).join('\n'))}</failure>`);
    if (r.verdict === 'error') parts.push(`<error message="${xml(r.reason ?? 'error')}"/>`);
    const info = r.checks.filter((k) => k.level !== 'promise');
    if (info.length > 0) parts.push(`<system-out>${xml(info.map((k) => `[${k.level}${k.ok ? '' : ', differs'}] ${k.name}: expected ${k.expected}, observed ${k.observed}`).join('\n'))}</system-out>`);
    return parts.length === 0 ? `    <testcase ${attrs}/>` : `    <testcase ${attrs}>\n      ${parts.join('\n      ')}\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="pix-usdt conformance" tests="${report.scenarios.length}" failures="${c.fail}" errors="${c.error}" skipped="${c.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${xml(report.baseUrl)}" tests="${report.scenarios.length}" failures="${c.fail}" errors="${c.error}" skipped="${c.skipped}" timestamp="${report.startedAt}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
