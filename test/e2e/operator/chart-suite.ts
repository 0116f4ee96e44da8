/**
 * One e2e suite's world, set up once per file: a real apiserver, a shared `zvm-operator sim` host as ZHost
 * `default`, and the chart installed with the suite's values (chart-pods.ts). Registers the suite's
 * beforeAll/afterAll, so a test file states only what differs: values, objects to create first, pods it
 * starts itself.
 */
import { installChart, type ChartInstall, type InstallOptions } from './chart-pods.js';
import { startOperatorEnv, stopProcess, type OperatorEnv } from './helpers.js';
import { startSharedHost, type SharedHost } from './shared-host.js';

export interface ChartSuiteOptions extends InstallOptions {
  /** before the chart is installed: Secrets it names, ZHost changes */
  prepare?: (o: OperatorEnv) => Promise<void>;
  /** before the chart's pods stop: what the suite started itself (its own pods, a standalone) */
  cleanup?: () => Promise<void>;
}

export interface ChartSuite {
  env(): OperatorEnv;
  host(): SharedHost;
  install(): ChartInstall;
}

export function chartPodsForSuite(options: ChartSuiteOptions = {}): ChartSuite {
  const { prepare, cleanup, ...render } = options;
  let o: OperatorEnv | undefined;
  let host: SharedHost | undefined;
  let install: ChartInstall | undefined;
  beforeAll(async () => {
    o = await startOperatorEnv();
    host = await startSharedHost(o);
    await prepare?.(o);
    install = await installChart(o, render);
  }, 240_000);
  afterAll(async () => {
    await cleanup?.();
    await install?.stop();
    await host?.close();
    if (host) await stopProcess(host.sim);
    await o?.env.stop();
  }, 60_000);
  return {
    env: () => started(o, 'the kube test env'),
    host: () => started(host, 'the shared host'),
    install: () => started(install, 'the chart'),
  };
}

export function started<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} did not start (see the suite's beforeAll)`);
  return value;
}
