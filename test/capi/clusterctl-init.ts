/**
 * `clusterctl init --infrastructure zvm` from the local repository (clusterctl/infrastructure-zvm, the
 * generated components), on a test kube-apiserver with no kubelet: no pod ever runs there.
 *
 * What init needs besides our folder, and how the test gives it (read from clusterctl v1.14.2's
 * client/init.go, cluster/installer.go and cluster/cert_manager.go):
 * - a core provider already in its inventory, else init adds cluster-api, kubeadm bootstrap and control
 *   plane and fetches their components from their release pages: the managers run as processes
 *   (managers.ts) and their Provider entries are written as init would have;
 * - the core provider's metadata.yaml (init checks that every provider speaks the core's contract): the
 *   cluster-api module ships it at its root, served from a local folder through `providers:`;
 * - cert-manager: init first creates an Issuer and a Certificate (cert-manager-test-resources.yaml)
 *   and installs cert-manager only when that fails. cert-manager's pods cannot run here, but its
 *   CRDs alone let those objects be created (no admission webhook is registered), so init goes on. The
 *   CRDs are cert-manager's own, from its Go module (deploy/crds) at clusterctl's default version.
 * The Deployment init creates never runs either: the test runs the compiled controller as a process
 * with that Deployment's manager args (provider-env.ts).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { stringify } from 'yaml';
import { repositoryDir } from '../../src/capi/render.js';
import { startKubeTestEnv } from '../kube/harness.js';
import { kubectlOk } from '../kube/kubectl.js';
import { REPO, type OperatorEnv } from '../e2e/operator/helpers.js';
import { CORE, KUBEADM_BOOTSTRAP, startCapiManagers, type CapiManagers } from './managers.js';
import type { CapiToolchain } from './toolchain.js';

const run = promisify(execFile);

export const CAPI_VERSION = 'v1.14.2';
/** clusterctl v1.14.2's CertManagerDefaultVersion (cmd/clusterctl/client/config/cert_manager_client.go). */
export const CERT_MANAGER_VERSION = 'v1.21.1';

/** The folder of a Go module version in Go's module cache, downloaded from the module proxy once. */
export async function goModuleDir(module: string, version: string, tempDir: string): Promise<string> {
  const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin`, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
  const { stdout } = await run('go', ['mod', 'download', '-json', `${module}@${version}`], { cwd: tempDir, env, timeout: 300_000 })
    .catch((err: { stderr?: string; stdout?: string; message: string }) => { throw new Error(`go mod download ${module}@${version}: ${err.stdout ?? ''}${err.stderr ?? err.message}`); });
  const info = JSON.parse(stdout) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${module}@${version}: ${info.Error ?? 'no Dir'}`);
  return info.Dir;
}

/** The provider entries of `clusterctl init` for the managers the test runs itself (CoreProvider first). */
export const RUN_BY_TEST = [
  { name: 'cluster-api', prefix: '', type: 'CoreProvider', namespace: 'capi-system' },
  { name: 'kubeadm', prefix: 'bootstrap-', type: 'BootstrapProvider', namespace: 'capi-kubeadm-bootstrap-system' },
] as const;

/**
 * What `clusterctl init` records for the providers the test runs as processes: its Provider CRD, one
 * Provider each, and the `clusterctl.cluster.x-k8s.io` label on their CRDs (move discovers the kinds it
 * carries by it; init puts it on every object it installs, ours included).
 */
async function recordManagersRunByTest(kubeconfig: string, capi: CapiToolchain): Promise<void> {
  const crd = join(capi.configDir, 'cmd', 'clusterctl', 'crd', 'bases', 'clusterctl.cluster.x-k8s.io_providers.yaml');
  await kubectlOk(['apply', '--server-side', '-f', crd], { kubeconfig });
  await kubectlOk(['wait', '--for=condition=Established', 'crd/providers.clusterctl.cluster.x-k8s.io', '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
  const labels = RUN_BY_TEST.map((p) => `${p.prefix}${p.name}`).join(',');
  await kubectlOk(['label', 'crd', '-l', `cluster.x-k8s.io/provider in (${labels})`, 'clusterctl.cluster.x-k8s.io=', '--overwrite'], { kubeconfig });
  const items = RUN_BY_TEST.flatMap((p) => [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: p.namespace } },
    {
      apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3', kind: 'Provider',
      metadata: { name: `${p.prefix}${p.name}`, namespace: p.namespace, labels: { 'clusterctl.cluster.x-k8s.io/core': 'inventory', 'cluster.x-k8s.io/provider': `${p.prefix}${p.name}` } },
      providerName: p.name, type: p.type, version: CAPI_VERSION,
    },
  ]);
  await kubectlOk(['apply', '-f', '-'], { kubeconfig, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items }) });
}

/** cert-manager's CRDs, as its release ships them. */
async function installCertManagerCrds(kubeconfig: string, tempDir: string): Promise<void> {
  const dir = join(await goModuleDir('github.com/cert-manager/cert-manager', CERT_MANAGER_VERSION, tempDir), 'deploy', 'crds');
  const files = (await readdir(dir)).filter((f) => /^[a-z.-]+_[a-z]+\.yaml$/.test(f)); // <group>_<plural>.yaml
  await kubectlOk(['apply', '--server-side', ...files.flatMap((f) => ['-f', join(dir, f)])], { kubeconfig, timeoutMs: 120_000 });
  const names = files.map((f) => { const [group, plural] = f.replace(/\.yaml$/, '').split('_'); return `crd/${plural}.${group}`; });
  await kubectlOk(['wait', '--for=condition=Established', ...names, '--timeout=60s'], { kubeconfig, timeoutMs: 70_000 });
}

/** clusterctl's config: the core provider's metadata and our generated folder as local repositories. */
async function writeClusterctlConfig(tempDir: string): Promise<string> {
  const coreDir = join(tempDir, 'clusterctl-repo', 'cluster-api', CAPI_VERSION);
  await mkdir(coreDir, { recursive: true });
  await copyFile(join(await goModuleDir('sigs.k8s.io/cluster-api', CAPI_VERSION, tempDir), 'metadata.yaml'), join(coreDir, 'metadata.yaml'));
  const config = {
    providers: [
      { name: 'cluster-api', type: 'CoreProvider', url: `file://${join(coreDir, 'core-components.yaml')}` },
      { name: 'zvm', type: 'InfrastructureProvider', url: `file://${join(REPO, repositoryDir(), 'infrastructure-components.yaml')}` },
    ],
    'cert-manager': { version: CERT_MANAGER_VERSION },
  };
  const path = join(tempDir, 'clusterctl.yaml');
  await writeFile(path, stringify(config));
  return path;
}

/** Runs `clusterctl init --infrastructure zvm`; resolves with its output. */
export async function clusterctlInit(kubeconfig: string, capi: CapiToolchain, tempDir: string): Promise<string> {
  await recordManagersRunByTest(kubeconfig, capi);
  await installCertManagerCrds(kubeconfig, tempDir);
  const config = await writeClusterctlConfig(tempDir);
  const { stdout, stderr } = await run(capi.clusterctl, ['init', '--infrastructure', 'zvm', '--config', config, '--kubeconfig', kubeconfig, '-v', '2'], {
    env: { ...process.env, HOME: tempDir, CLUSTERCTL_DISABLE_VERSIONCHECK: 'true' }, timeout: 300_000,
  }).catch((err: { stdout?: string; stderr?: string; message: string }) => { throw new Error(`clusterctl init: ${err.stdout ?? ''}${err.stderr ?? err.message}`); });
  return stdout + stderr;
}

/** Where clusterctl installs our components (their one Namespace). */
export const PROVIDER_NAMESPACE = 'capzvm-system';

export interface ManagementCluster {
  /** the kube env, its admin kubeconfig and our provider's namespace */
  o: OperatorEnv;
  managers: CapiManagers;
  /** what `clusterctl init` printed */
  initOutput: string;
  stop(): Promise<void>;
}

/**
 * A management cluster as `clusterctl init --infrastructure zvm` leaves it: a kube-apiserver, Cluster
 * API's core and kubeadm bootstrap managers as processes, and our components installed by init (our
 * controller is started by provider-env.ts).
 */
export async function startManagementCluster(capi: CapiToolchain): Promise<ManagementCluster> {
  const env = await startKubeTestEnv();
  const o: OperatorEnv = { env, kubeconfig: env.adminKubeconfig, namespace: PROVIDER_NAMESPACE };
  let managers: CapiManagers | undefined;
  const stop = async () => {
    await managers?.stop();
    await env.stop();
  };
  try {
    managers = await startCapiManagers({ kubeconfig: o.kubeconfig, tempDir: env.tempDir }, capi, [CORE, KUBEADM_BOOTSTRAP]);
    const initOutput = await clusterctlInit(o.kubeconfig, capi, env.tempDir);
    await kubectlOk(['wait', '--for=condition=Established', 'crd', '-l', 'cluster.x-k8s.io/provider=infrastructure-zvm', '--timeout=60s'], { kubeconfig: o.kubeconfig, timeoutMs: 70_000 });
    return { o, managers, initOutput, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The args of the `manager` container of the Deployment `clusterctl init` created (variables substituted). */
export async function installedManagerArgs(o: OperatorEnv): Promise<string[]> {
  const list = JSON.parse(await kubectlOk(['get', 'deployments', '-n', o.namespace, '-l', 'cluster.x-k8s.io/provider=infrastructure-zvm', '-o', 'json'], { kubeconfig: o.kubeconfig })) as {
    items: { spec: { template: { spec: { containers: { name: string; args?: string[] }[] } } } }[];
  };
  const manager = list.items.flatMap((d) => d.spec.template.spec.containers).find((c) => c.name === 'manager');
  if (!manager?.args) throw new Error(`no Deployment with a manager container in ${o.namespace}`);
  return manager.args;
}
