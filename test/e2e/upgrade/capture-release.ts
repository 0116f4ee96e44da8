/**
 * Regenerates test/fixtures/release-0.1.0/ from a build of release 0.1.0 (commit f41a547):
 *
 *   git worktree add /tmp/zvm-0.1.0 f41a547 && cd /tmp/zvm-0.1.0 && npm ci   # npm ci builds dist/
 *   cd <this repo> && npx tsx test/e2e/upgrade/capture-release.ts --release /tmp/zvm-0.1.0
 *
 * The release's own controller (its dist/, its CRDs) runs against a real kube-apiserver (the e2e
 * harness) and a simulated host served from this process (fixture-host.ts); the release's standalone
 * mode writes its own state directory. What it leaves is the fixture: CRDs, objects with status, the
 * host's state, the standalone state directory, the release's chart package and its compiled build.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { generateEd25519KeyPair } from '../../../src/hypervisor/sim/ssh/ssh-keys.js';
import { helmBin } from '../../chart/render.js';
import { startKubeTestEnv } from '../../kube/harness.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { freePort, stopProcess, waitUntil, type LoggedProcess } from '../../kube/processes.js';
import { clusterObjects, IMAGE, namespacedObjects, POOL_REPLICAS, secrets, zhost } from './capture-objects.js';
import { captureStandalone } from './capture-standalone.js';
import { startFixtureHost } from './fixture-host.js';
import { FIXTURE_DIR, GUEST_NAMESPACE, OPERATOR_NAMESPACE, portable, RELEASE, type KubeObject } from './release.js';
import { spawnRelease } from './release-build.js';

const BOUND_MS = 600_000;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

async function main(): Promise<void> {
  const release = arg('--release');
  const out = arg('--out') ?? FIXTURE_DIR;
  if (!release) throw new Error('usage: capture-release.ts --release <a built checkout of release 0.1.0> [--out dir]');
  const version = (JSON.parse(readFileSync(join(release, 'package.json'), 'utf8')) as { version: string }).version;
  if (version !== RELEASE) throw new Error(`${release} is version ${version}, not ${RELEASE}`);
  const main = join(release, 'dist/cmd/main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build the release first (npm ci)`);
  for (const d of ['crds', 'host', 'standalone']) rmSync(join(out, d), { recursive: true, force: true });
  mkdirSync(join(out, 'host'), { recursive: true });
  writeFileSync(join(out, 'host', 'ssh-host-key'), generateEd25519KeyPair().private, { mode: 0o600 });

  await captureCluster(release, main, out);
  await captureStandalone(main, join(out, 'standalone'), join(out, 'standalone-guests.json'));
  cpSync(join(release, 'crds'), join(out, 'crds'), { recursive: true });
  execFileSync(await helmBin(), ['package', join(release, 'helm/zvm-operator'), '-d', out], { stdio: 'inherit' });
  execFileSync('tar', ['--exclude=*.map', '--exclude=*.d.ts', '--sort=name', '--mtime=@0', '--owner=0', '--group=0', '-czf', join(out, 'dist.tar.gz'), '-C', release, 'package.json', 'dist']);
  console.log(`release ${RELEASE} captured into ${out}`);
}

async function captureCluster(release: string, main: string, out: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'zvm-capture-'));
  const env = await startKubeTestEnv();
  const kubeconfig = env.adminKubeconfig;
  const host = await startFixtureHost(join(out, 'host'));
  let controller: LoggedProcess | undefined;
  try {
    for (const file of readdirSync(join(release, 'crds')).filter((f) => f.endsWith('.yaml'))) {
      await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: JSON.stringify(parseYaml(readFileSync(join(release, 'crds', file), 'utf8'))) });
    }
    await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
    for (const ns of [OPERATOR_NAMESPACE, GUEST_NAMESPACE]) await kubectlOk(['create', 'namespace', ns], { kubeconfig });
    const images = join(work, 'images');
    mkdirSync(images);
    writeFileSync(join(images, `${IMAGE}.img`), Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(20_000, 7)]));
    const create = (items: unknown[]) => kubectlOk(['create', '-f', '-'], { kubeconfig, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
    await create([...secrets(), zhost(host), ...clusterObjects(images)]);
    const probe = await freePort();
    controller = spawnRelease(main, join(work, 'controller.log'), [
      'controller', '--kubeconfig', kubeconfig, '--namespace', OPERATOR_NAMESPACE, '--image-dir', images,
      '--health-probe-bind-address', `127.0.0.1:${probe}`, '--metrics-bind-address', '0', '--poll-ms', '500',
    ]);
    await waitUntil(async () => (await fetch(`http://127.0.0.1:${probe}/readyz`).catch(() => undefined))?.ok === true, { what: 'the release controller ready', timeoutMs: 60_000, watch: [controller] });
    await kubectlOk(['wait', '--for=condition=Ready', 'zhost/default', 'zvswitch/vsw1', `zimage/${IMAGE}`, '--timeout=120s'], { kubeconfig, timeoutMs: 130_000 });
    await create(namespacedObjects());
    await waitUntil(async () => (await kubectlOk(['get', '-n', GUEST_NAMESPACE, 'zgpool/web', '-o', 'jsonpath={.status.readyReplicas}'], { kubeconfig })) === String(POOL_REPLICAS),
      { what: 'the pool ready', timeoutMs: BOUND_MS, watch: [controller], intervalMs: 1000 });
    await kubectlOk(['wait', '-n', GUEST_NAMESPACE, '--for=condition=Ready', 'zguest', '--all', '--timeout=600s'], { kubeconfig, timeoutMs: BOUND_MS + 10_000 });
    await new Promise((r) => setTimeout(r, 5_000)); // a few polls more: the status the release leaves at rest
    await stopProcess(controller);
    controller = undefined;
    const objects = [...secrets(), ...(await listPortable(kubeconfig))];
    writeFileSync(join(out, 'objects.json'), `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }, null, 1)}\n`);
  } finally {
    if (controller) await stopProcess(controller);
    await host.close();
    await env.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

/** Every object of the release's kinds, portable; each must be at generation 1 (its status then matches a fresh create). */
async function listPortable(kubeconfig: string): Promise<KubeObject[]> {
  const kinds = ['zhosts', 'zvswitches', 'zimages', 'zguestclasses', 'zguestpools', 'zguests'];
  const got = JSON.parse(await kubectlOk(['get', kinds.join(','), '-A', '-o', 'json'], { kubeconfig })) as { items: KubeObject[] };
  const moved = got.items.filter((o) => o.metadata.generation !== 1).map((o) => `${o.kind}/${o.metadata.name}`);
  if (moved.length) throw new Error(`objects past generation 1: ${moved.join(', ')}`);
  return got.items.map(portable);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
