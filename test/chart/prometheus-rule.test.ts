/**
 * The chart's PrometheusRule, checked by the real promtool (test/monitoring/toolchain.sh builds it):
 * `promtool check rules` on the rendered rules and `promtool test rules` with a firing and a quiet
 * case per alert (test/monitoring/alerts.test.yaml); every alert links a runbook that exists.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { resolvePromtool } from '../monitoring/toolchain.js';
import { exec, find, renderChart } from './render.js';
import { REPO } from './sources.js';

interface Rule { alert: string; expr: string; labels: Record<string, string>; annotations: Record<string, string> }
interface PromTest { alert_rule_test: { alertname: string; exp_alerts: unknown[] }[] }

const RUNBOOKS = join(REPO, 'docs/runbooks');
const UNIT_TESTS = join(REPO, 'test/monitoring/alerts.test.yaml');
const SECTIONS = ['## Meaning', '## Impact', '## Diagnosis', '## Mitigation'];

describe('PrometheusRule', () => {
  let dir: string;
  let groups: { name: string; rules: Rule[] }[];
  const alerts = (): Rule[] => groups.flatMap((g) => g.rules);

  beforeAll(async () => {
    const rule = find(await renderChart({ set: ['monitoring.prometheusRule.enabled=true'] }), 'PrometheusRule');
    groups = (rule.spec as { groups: typeof groups }).groups;
    dir = mkdtempSync(join(tmpdir(), 'zvm-rules-'));
    writeFileSync(join(dir, 'rules.yaml'), stringify({ groups }));
    copyFileSync(UNIT_TESTS, join(dir, 'alerts.test.yaml'));
  }, 60_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is not rendered by default', async () => {
    expect((await renderChart()).filter((m) => m.kind === 'PrometheusRule')).toEqual([]);
  });

  it('passes promtool check rules', async () => {
    const r = await exec(await resolvePromtool(), ['check', 'rules', join(dir, 'rules.yaml')]);
    expect(r.code === 0 ? '' : r.stdout + r.stderr).toBe('');
    expect(r.stdout).toContain(`SUCCESS: ${alerts().length} rules found`);
  });

  it('passes promtool test rules', async () => {
    const r = await exec(await resolvePromtool(), ['test', 'rules', join(dir, 'alerts.test.yaml')], 120_000);
    expect(r.code === 0 ? '' : r.stdout + r.stderr).toBe('');
    expect(r.stdout).toContain('SUCCESS');
  });

  it('has a firing and a quiet unit test for every alert', () => {
    const cases = (parse(readFileSync(UNIT_TESTS, 'utf8')) as { tests: PromTest[] }).tests.flatMap((t) => t.alert_rule_test);
    const gaps = alerts().flatMap((a) => {
      const mine = cases.filter((c) => c.alertname === a.alert);
      return [
        ...(mine.some((c) => c.exp_alerts.length > 0) ? [] : [`${a.alert}: no firing case`]),
        ...(mine.some((c) => c.exp_alerts.length === 0) ? [] : [`${a.alert}: no quiet case`]),
      ];
    });
    expect(gaps).toEqual([]);
  });

  it('links each alert to its runbook, which says what it means and what to do', () => {
    const problems = alerts().flatMap((a) => {
      const file = join(RUNBOOKS, `${a.alert}.md`);
      if (!a.annotations.runbook_url?.endsWith(`/docs/runbooks/${a.alert}.md`)) return [`${a.alert}: runbook_url ${a.annotations.runbook_url}`];
      if (!existsSync(file)) return [`${a.alert}: no docs/runbooks/${a.alert}.md`];
      const text = readFileSync(file, 'utf8');
      return SECTIONS.filter((s) => !text.includes(s)).map((s) => `${a.alert}: runbook lacks ${s}`);
    });
    const orphans = readdirSync(RUNBOOKS).filter((f) => f !== 'README.md' && !alerts().some((a) => `${a.alert}.md` === f));
    expect({ problems, orphans }).toEqual({ problems: [], orphans: [] });
    expect(alerts().every((a) => ['critical', 'warning', 'info'].includes(a.labels.severity ?? ''))).toBe(true);
  });
});
