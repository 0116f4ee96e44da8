import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../chart/sources.js';
import { dashboardMetricNames, metricNames, type Dashboard } from '../monitoring/dashboard.js';

describe('metric names of PromQL queries', () => {
  it('finds the metrics, not functions, labels, label values or durations', () => {
    expect(metricNames('histogram_quantile(0.95, sum by (host, le) (rate(zvm_smapi_call_duration_seconds_bucket{host=~"$host",outcome!="success"}[5m])))'))
      .toEqual(['zvm_smapi_call_duration_seconds_bucket']);
    expect(metricNames('sum(rate(a_total{status=~"5.."}[5m])) / sum(rate(b_total[1h] offset 10m)) and max(up) > 1e3'))
      .toEqual(['a_total', 'b_total', 'up']);
  });

  it('reads the dashboard\'s panels and label_values variables', () => {
    const d = JSON.parse(readFileSync(join(REPO, 'helm/zvm-operator/dashboards/zvm-operator.json'), 'utf8')) as Dashboard;
    const names = dashboardMetricNames(d);
    expect(names).toEqual(expect.arrayContaining(['zvm_guests', 'zvm_smapi_calls_total', 'zvm_rest_requests_total', 'workqueue_depth', 'controller_runtime_reconcile_total']));
    expect(names.filter((n) => !/^(zvm_|controller_runtime_|workqueue_|leader_election_|process_|nodejs_|up$)/.test(n))).toEqual([]);
  });
});
