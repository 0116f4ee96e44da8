/**
 * An upgrade that keeps every guest (issue 37): release 0.1.0, as captured in
 * test/fixtures/release-0.1.0/, installed with its chart (`helm install` of its package) on a real
 * apiserver, its objects and their status restored, its own build running the chart's pod against
 * the simulated host that holds its 50 guests; then this version's CRDs and chart (`helm upgrade`) with
 * this build, whose controller moves the stored objects to v1beta1 at start-up (etcd read under its key
 * prefix, the CRDs' storedVersions), and a `helm rollback` to the release. After each step every guest is
 * Ready and keeps its status, no SMAPI write reaches the host (calls counted by function at the host) and
 * no guest logged off or on again. The counts are printed.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { kindDefinition } from '../../../src/api/index.js';
import { CHART_DIR } from '../../chart/sources.js';
import { helm, parseManifests } from '../../chart/render.js';
import { startKubeTestEnv } from '../../kube/harness.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { startDeployment, type RunningPod } from '../operator/chart-pods.js';
import { freePorts, REPO, type OperatorEnv } from '../operator/helpers.js';
import { startFixtureHost, type FixtureHost } from './fixture-host.js';
import { atHost, FIXTURE_DIR, GUEST_NAMESPACE, OPERATOR_NAMESPACE, readFixtureObjects, RELEASE, renameOwnerMarks, restoreObjects, type KubeObject } from './release.js';
import { unpackRelease } from './release-build.js';
import { reconcileEveryGuest, settled } from './settle.js';
import { etcdApiVersions, storedVersions } from './storage-migration.js';
import { total } from './smapi-calls.js';
import { describeOutcome, logons, moved, NOTHING_MOVED, stepOutcome, type StepOutcome } from './outcome.js';

const RELEASE_NAME = 'zvm-operator';
/** the same values file for every revision, as a user keeps one; a 2 s drift period so that a few passes run while the test waits */
const VALUES = { replicas: 1, controller: { driftPeriod: '2s', extraArgs: ['--poll-ms=200'] } };

let o: OperatorEnv | undefined;
let etcdUrl = '';
let host: FixtureHost | undefined;
let pods: RunningPod[] = [];
let work = '';
let releaseMain = '';
const captured = readFixtureObjects();
const capturedGuests = captured.filter((x) => x.kind === 'ZGuest');
/** the release's objects of our group (the rest are Secrets) */
const capturedZvm = captured.filter((x) => x.apiVersion.startsWith('zvm.dev/'));

function env(): OperatorEnv {
  if (!o) throw new Error('the kube test env did not start (see beforeAll)');
  return o;
}

async function helmOk(args: string[]): Promise<string> {
  const r = await helm([...args, '--namespace', OPERATOR_NAMESPACE, '--kubeconfig', env().kubeconfig]);
  if (r.code !== 0) throw new Error(`helm ${args.join(' ')} failed: ${r.stderr}`);
  return r.stdout;
}

/** The release's pods, as its current revision renders them, running `main` (a build). */
async function runRevision(main: string | undefined): Promise<RunningPod[]> {
  for (const p of pods) await p.stop();
  pods = [];
  const deployments = parseManifests(await helmOk(['get', 'manifest', RELEASE_NAME])).filter((m) => m.kind === 'Deployment');
  for (const d of deployments) pods.push(...(await startDeployment(env(), d, main ? { main } : {})));
  return pods;
}

/** Waits until the controller has looked at everything and reconciled every guest, then answers what the step did on the host. */
async function afterStep(): Promise<StepOutcome> {
  const controller = pods[0]?.containers.controller;
  if (!controller) throw new Error('no controller container in the chart');
  const metricsUrl = `http://127.0.0.1:${controller.ports.metrics}/metrics`;
  const watch = pods.flatMap((p) => Object.values(p.containers).map((c) => c.proc));
  await settled({ metricsUrl, calls: () => theHost().calls.since(), watch, expect: { zhost: 1, zvswitch: 1, zimage: 1, zguestpool: 1 } });
  steps += 1;
  const annotate = async () => void (await kubectlOk(['annotate', 'zguests', '--all', '-n', GUEST_NAMESPACE, '--overwrite', `upgrade-test.zvm.dev/step=${steps}`], { kubeconfig: env().kubeconfig }));
  await reconcileEveryGuest({ metricsUrl, annotate, guests: capturedGuests.length, watch });
  const listed = (JSON.parse(await kubectlOk(['get', 'zguests', '-n', GUEST_NAMESPACE, '-o', 'json'], { kubeconfig: env().kubeconfig })) as { items: KubeObject[] }).items;
  return stepOutcome({ captured: capturedGuests, listed, calls: theHost().calls.since(), before: runningAtCapture, after: logons(theHost().state()) });
}

let steps = 0;
let runningAtCapture = new Map<string, number>();

function theHost(): FixtureHost {
  if (!host) throw new Error('the simulated host did not start (see beforeAll)');
  return host;
}

function expectNothingMoved(step: string, r: StepOutcome): void {
  console.log(describeOutcome(step, capturedGuests.length, r));
  expect(moved(r)).toEqual(NOTHING_MOVED);
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'zvm-upgrade-'));
  const kube = await startKubeTestEnv();
  o = { env: kube, kubeconfig: kube.adminKubeconfig, namespace: OPERATOR_NAMESPACE };
  etcdUrl = kube.etcdUrl;
  for (const ns of [OPERATOR_NAMESPACE, GUEST_NAMESPACE]) await kubectlOk(['create', 'namespace', ns], { kubeconfig: o.kubeconfig });
  releaseMain = unpackRelease(join(work, 'release'));
  writeFileSync(join(work, 'values.yaml'), stringify(VALUES));
  await helmOk(['install', RELEASE_NAME, join(FIXTURE_DIR, `zvm-operator-${RELEASE}.tgz`), '-f', join(work, 'values.yaml')]);
  await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], { kubeconfig: o.kubeconfig, timeoutMs: 70_000 });
  const [smapiPort, sshPort] = await freePorts(2);
  const ports = { smapiPort, sshPort };
  const renamed = await restoreObjects(o.kubeconfig, captured.map((x) => atHost(x, ports)));
  cpSync(join(FIXTURE_DIR, 'host'), join(work, 'host'), { recursive: true });
  renameOwnerMarks(join(work, 'host', 'sim.json'), renamed);
  host = await startFixtureHost(join(work, 'host'), ports);
  runningAtCapture = logons(host.state());
}, 240_000);

afterAll(async () => {
  for (const p of pods) await p.stop();
  await host?.close();
  await o?.env.stop();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe(`upgrade from release ${RELEASE} with 50 guests`, () => {
  it(`the release's own pod takes its restored state over without a SMAPI write (the fixture is consistent)`, async () => {
    expect(capturedGuests).toHaveLength(50);
    expect(runningAtCapture.size).toBeGreaterThan(30);
    theHost().calls.mark();
    await runRevision(releaseMain);
    expectNothingMoved(`release ${RELEASE} running`, await afterStep());
  }, 300_000);

  it('helm upgrade to this chart and build: every guest stays Ready and keeps its status, no SMAPI write, no restart; the objects move to v1beta1 in etcd', async () => {
    const { kubeconfig } = env();
    theHost().calls.mark();
    expect(await etcdApiVersions(etcdUrl)).toEqual({ 'zvm.dev/v1alpha1': capturedZvm.length });
    // helm installs a chart's CRDs only on install: an upgrade applies them first (docs/upgrade.md)
    await kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', join(REPO, 'crds')], { kubeconfig });
    await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    expect(await storedVersions(kubeconfig)).toEqual(new Set([JSON.stringify(['v1alpha1', 'v1beta1'])]));
    await helmOk(['upgrade', RELEASE_NAME, CHART_DIR, '-f', join(work, 'values.yaml')]);
    await runRevision(undefined);
    const r = await afterStep();
    expect(total(r.calls)).toBeGreaterThan(0); // the new controller did look at the host
    expectNothingMoved(`helm upgrade ${RELEASE} -> this version (with the storage migration)`, r);
    // the new controller's start-up migration: every object stored at v1beta1, and the CRDs say so
    expect(await storedVersions(kubeconfig)).toEqual(new Set([JSON.stringify(['v1beta1'])]));
    const stored = await etcdApiVersions(etcdUrl);
    console.log(`stored in etcd after the upgrade: ${JSON.stringify(stored)}`);
    expect(stored).toEqual({ 'zvm.dev/v1beta1': capturedZvm.length });
  }, 300_000);

  it(`serves the objects ${RELEASE} stored, now at v1beta1, through both versions`, async () => {
    const { kubeconfig } = env();
    // every kind of the release's objects, every field they hold, read through both versions
    const kinds = [...new Set(capturedZvm.map((x) => x.kind))];
    expect(kinds).toHaveLength(6);
    for (const kind of kinds) {
      const listed = async (version: string) => (JSON.parse(await kubectlOk(['get', `${kindDefinition(kind).plural}.${version}.zvm.dev`, '-A', '-o', 'json'], { kubeconfig })) as { items: KubeObject[] }).items;
      const [alpha, beta] = [await listed('v1alpha1'), await listed('v1beta1')];
      expect({ kind, count: alpha.length }).toEqual({ kind, count: captured.filter((x) => x.kind === kind).length });
      expect(new Set(beta.map((x) => x.apiVersion))).toEqual(new Set(['zvm.dev/v1beta1']));
      expect(alpha.map((x) => ({ ...x, apiVersion: 'zvm.dev/v1beta1' }))).toEqual(beta);
    }
  }, 300_000);

  it(`helm rollback to ${RELEASE} leaves every guest Ready, with no SMAPI write and no restart`, async () => {
    theHost().calls.mark();
    await helmOk(['rollback', RELEASE_NAME, '1']);
    expect(await helmOk(['get', 'manifest', RELEASE_NAME])).toBe(await helmOk(['get', 'manifest', RELEASE_NAME, '--revision', '1']));
    await runRevision(releaseMain);
    expectNothingMoved(`helm rollback -> ${RELEASE}`, await afterStep());
  }, 300_000);
});
