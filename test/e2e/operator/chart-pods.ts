/**
 * The pods of a rendered Deployment (helm template, or deploy/), run on this machine as the kubelet
 * would start them: each container's args and env exactly as rendered ($(VAR) expanded from the
 * container's env, fieldRefs resolved), its volumes as local directories (an emptyDir per pod, a
 * persistentVolumeClaim per claim and shared, Secret and ConfigMap items written as files from the
 * apiserver), and the mount paths named in args and env rewritten to those directories. No flag is
 * added. Where this machine must differ from a pod, the process learns it the way it would in a pod:
 * - the API server: KUBECONFIG holding a token of the pod's ServiceAccount (client-node reads KUBECONFIG
 *   before the in-cluster files, which cannot be mounted here);
 * - the network: each containerPort becomes a free loopback port (in an arg that names it, `:<port>`, the
 *   all-interfaces bind of a pod, becomes `127.0.0.1:<local>`), and ZVM_BIND=127.0.0.1 is the env of the
 *   listen address of processes that take it from no arg (REST's --bind defaults to 0.0.0.0 in a pod);
 *   a pod may get its own source address for SMAPI (StartPodOptions.podAddress), as a pod IP would be.
 * Readiness is the container's own readinessProbe (httpGet or tcpSocket).
 */
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { ZvmError } from '../../../src/errors.js';
import { renderChart, type Manifest, type RenderOptions } from '../../chart/render.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { freePorts, spawnCli, stopProcess, waitUntil, type LoggedProcess, type OperatorEnv } from './helpers.js';

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { fieldRef?: { fieldPath: string }; secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } };
}
interface Probe { httpGet?: { path: string; port: string | number }; tcpSocket?: { port: string | number } }
interface ContainerSpec {
  name: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
  readinessProbe?: Probe;
}
interface VolumeSpec {
  name: string;
  emptyDir?: unknown;
  persistentVolumeClaim?: { claimName: string };
  secret?: { secretName: string; items?: { key: string; path: string }[]; defaultMode?: number };
  configMap?: { name: string; items?: { key: string; path: string }[]; defaultMode?: number };
}
interface PodTemplate { spec: { serviceAccountName: string; containers: ContainerSpec[]; volumes?: VolumeSpec[] } }

export interface RunningContainer {
  proc: LoggedProcess;
  /** loopback port of each containerPort, by port name (and by number) */
  ports: Record<string, number>;
  /** the args the process got, after $(VAR), mount path and port mapping */
  args: string[];
}

export interface RunningPod {
  name: string;
  containers: Record<string, RunningContainer>;
  /** local directory of each volume mount, by mountPath */
  mounts: Record<string, string>;
  stop(): Promise<void>;
}

const template = (d: Manifest): PodTemplate => (d.spec as { template: PodTemplate }).template;
const replicasOf = (d: Manifest): number => (d.spec as { replicas?: number }).replicas ?? 1;

/** A kubeconfig holding only a token of the ServiceAccount (what the pod would get mounted). */
export async function serviceAccountKubeconfig(o: OperatorEnv, namespace: string, serviceAccount: string, path: string): Promise<string> {
  const token = (await kubectlOk(['create', 'token', serviceAccount, '-n', namespace, '--duration=1h'], { kubeconfig: o.kubeconfig })).trim();
  const admin = parse(await readFile(o.kubeconfig, 'utf8')) as { clusters: { name: string }[] };
  await writeFile(path, stringify({
    apiVersion: 'v1', kind: 'Config', clusters: admin.clusters,
    users: [{ name: serviceAccount, user: { token } }],
    contexts: [{ name: serviceAccount, context: { cluster: admin.clusters[0]?.name, user: serviceAccount, namespace } }],
    'current-context': serviceAccount,
  }), { mode: 0o600 });
  return path;
}

async function readData(o: OperatorEnv, kind: 'secret' | 'configmap', name: string, namespace: string): Promise<Record<string, Buffer>> {
  const obj = JSON.parse(await kubectlOk(['get', kind, name, '-n', namespace, '-o', 'json'], { kubeconfig: o.kubeconfig })) as { data?: Record<string, string> };
  return Object.fromEntries(Object.entries(obj.data ?? {}).map(([k, v]) => [k, Buffer.from(v, kind === 'secret' ? 'base64' : 'utf8')]));
}

/** A volume as a local directory: emptyDir per pod, a claim shared by every pod, Secret/ConfigMap items as files. */
async function volumeDir(o: OperatorEnv, v: VolumeSpec, podDir: string, root: string, namespace: string): Promise<string> {
  if (v.persistentVolumeClaim) {
    const dir = join(root, 'claims', v.persistentVolumeClaim.claimName);
    await mkdir(dir, { recursive: true });
    return dir;
  }
  const dir = join(podDir, 'volumes', v.name);
  await mkdir(dir, { recursive: true });
  if (v.emptyDir !== undefined) return dir;
  const source = v.secret ? { kind: 'secret' as const, name: v.secret.secretName, ...v.secret } : v.configMap ? { kind: 'configmap' as const, ...v.configMap } : undefined;
  if (!source) throw new ZvmError('INVALID_INPUT', `volume ${v.name}: this harness provides emptyDir, persistentVolumeClaim, secret and configMap only`);
  const data = await readData(o, source.kind, source.name, namespace);
  for (const { key, path } of source.items ?? Object.keys(data).map((k) => ({ key: k, path: k }))) {
    const value = data[key];
    if (value === undefined) throw new ZvmError('NOT_FOUND', `${source.kind} ${namespace}/${source.name} has no key ${key}`);
    await writeFile(join(dir, path), value);
    await chmod(join(dir, path), source.defaultMode ?? 0o644);
  }
  return dir;
}

/** Replaces each mount path inside a value (alone, as a prefix, or in a ':'/','-separated list) by its local directory, in one pass. */
function mapPaths(value: string, mounts: Record<string, string>): string {
  const paths = Object.keys(mounts).sort((a, b) => b.length - a.length);
  if (paths.length === 0) return value;
  const alternatives = paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return value.replace(new RegExp(`(^|[=:,])(${alternatives})(?=$|[/:,])`, 'g'), (_m, before: string, path: string) => `${before}${mounts[path]}`);
}

/** The pod's ports on loopback: `=:<port>` and `=0.0.0.0:<port>` bind 127.0.0.1:<local>, `=<port>` becomes `=<local>`. */
function mapPorts(arg: string, ports: Map<number, number>): string {
  return arg.replace(/^(--[^=]+=)(:|0\.0\.0\.0:)?(\d+)$/, (m, flag: string, bind: string | undefined, port: string) => {
    const local = ports.get(Number(port));
    if (local === undefined) return m;
    return bind ? `${flag}127.0.0.1:${local}` : `${flag}${local}`;
  });
}

async function resolveEnv(o: OperatorEnv, vars: EnvVar[], pod: { name: string; namespace: string }, mounts: Record<string, string>): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const v of vars) {
    const from = v.valueFrom;
    let value: string;
    if (!from) value = expand(v.value ?? '', env);
    else if (from.fieldRef?.fieldPath === 'metadata.namespace') value = pod.namespace;
    else if (from.fieldRef?.fieldPath === 'metadata.name') value = pod.name;
    else if (from.secretKeyRef) value = (await readData(o, 'secret', from.secretKeyRef.name, pod.namespace))[from.secretKeyRef.key]?.toString() ?? '';
    else if (from.configMapKeyRef) value = (await readData(o, 'configmap', from.configMapKeyRef.name, pod.namespace))[from.configMapKeyRef.key]?.toString() ?? '';
    else throw new ZvmError('INVALID_INPUT', `env ${v.name}: this harness cannot provide ${JSON.stringify(from)}`);
    env[v.name] = mapPaths(value, mounts);
  }
  return env;
}

/** The kubelet's $(VAR) expansion from the container's env ($$ escapes; an unknown name stays as written). */
function expand(text: string, env: Record<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (m, name: string | undefined) => (m === '$$' ? '$' : env[name as string] ?? m));
}

async function probeReady(probe: Probe | undefined, ports: Record<string, number>): Promise<boolean> {
  const port = (p: string | number) => ports[String(p)];
  if (probe?.httpGet) return (await fetch(`http://127.0.0.1:${port(probe.httpGet.port)}${probe.httpGet.path}`)).ok;
  if (probe?.tcpSocket) {
    const target = port(probe.tcpSocket.port);
    return new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port: target }, () => { socket.destroy(); resolve(true); });
      socket.once('error', () => resolve(false));
    });
  }
  return true;
}

export interface StartPodOptions {
  /** pod number (its name is `<deployment>-<index>`) */
  index: number;
  /**
   * The pod's own address (a loopback address such as 127.0.0.11): its SMAPI connections leave from it,
   * as they leave from the pod IP in a cluster, through ZVM_SMAPI_LOCAL_ADDRESS (the env of
   * --smapi-local-address). Default: 127.0.0.1 for every pod.
   */
  podAddress?: string;
  /** bound on readiness */
  timeoutMs?: number;
  /** the build the pod's image holds (its dist/cmd/main.js); default this repository's */
  main?: string;
  /** diagnostics only, added to every container's env (a bench's NODE_OPTIONS for a CPU profile); never an arg */
  diagnosticEnv?: Record<string, string>;
}

/** Holds every pod's volumes (claims are shared below it); removed with the kube test env. */
const rootOf = (o: OperatorEnv): string => join(o.env.tempDir, 'pods');

/** Starts one pod of the Deployment and waits until every container passes its readinessProbe. */
export async function startPod(o: OperatorEnv, deployment: Manifest, opts: StartPodOptions): Promise<RunningPod> {
  const spec = template(deployment).spec;
  const namespace = deployment.metadata.namespace ?? o.namespace;
  const name = `${deployment.metadata.name}-${opts.index}`;
  const root = rootOf(o);
  const podDir = join(root, name);
  await mkdir(podDir, { recursive: true });
  const volumes = new Map<string, string>();
  for (const v of spec.volumes ?? []) volumes.set(v.name, await volumeDir(o, v, podDir, root, namespace));
  const kubeconfig = await serviceAccountKubeconfig(o, namespace, spec.serviceAccountName, join(podDir, 'kubeconfig'));

  const containers: Record<string, RunningContainer> = {};
  const allMounts: Record<string, string> = {};
  const pod: RunningPod = { name, containers, mounts: allMounts, stop: async () => { for (const c of Object.values(containers)) await stopProcess(c.proc); } };
  try {
    // every port of the pod at once: the containers share the pod's loopback, as in a pod they share its network
    const podPorts = await freePorts(spec.containers.reduce((n, c) => n + (c.ports?.length ?? 0), 0));
    for (const c of spec.containers) {
      // the image's entrypoint is `node /app/dist/cmd/main.js` (image/build.sh), which spawnCli runs
      if (c.command) throw new ZvmError('INVALID_INPUT', `container ${c.name} overrides the image's command`);
      const mounts: Record<string, string> = {};
      for (const m of c.volumeMounts ?? []) {
        const base = volumes.get(m.name);
        if (base === undefined) throw new ZvmError('INVALID_INPUT', `container ${c.name} mounts unknown volume ${m.name}`);
        const dir = m.subPath ? join(base, m.subPath) : base;
        await mkdir(dir, { recursive: true });
        mounts[m.mountPath] = dir;
      }
      Object.assign(allMounts, mounts);
      const ports: Record<string, number> = {};
      const byNumber = new Map<number, number>();
      for (const p of c.ports ?? []) {
        const local = podPorts.shift() as number;
        byNumber.set(p.containerPort, local);
        ports[String(p.containerPort)] = local;
        if (p.name) ports[p.name] = local;
      }
      const env = await resolveEnv(o, c.env ?? [], { name, namespace }, mounts);
      const args = (c.args ?? []).map((a) => mapPorts(mapPaths(expand(a, env), mounts), byNumber));
      const network = { ZVM_BIND: '127.0.0.1', ...(opts.podAddress ? { ZVM_SMAPI_LOCAL_ADDRESS: opts.podAddress } : {}) };
      const proc = spawnCli(o, `${name}-${c.name}`, args, { ...env, ...network, ...opts.diagnosticEnv, KUBECONFIG: kubeconfig }, opts.main);
      containers[c.name] = { proc, ports, args };
    }
    const procs = Object.values(containers).map((c) => c.proc);
    for (const c of spec.containers) {
      const running = containers[c.name] as RunningContainer;
      await waitUntil(() => probeReady(c.readinessProbe, running.ports), { what: `${name}/${c.name} readinessProbe`, timeoutMs: opts.timeoutMs ?? 90_000, watch: procs, intervalMs: 300 });
    }
    return pod;
  } catch (err) {
    await pod.stop();
    throw err;
  }
}

/** Starts every replica of the Deployment, one after the other. */
export async function startDeployment(o: OperatorEnv, deployment: Manifest, opts: Omit<StartPodOptions, 'index'> = {}): Promise<RunningPod[]> {
  const pods: RunningPod[] = [];
  try {
    for (let index = 0; index < replicasOf(deployment); index++) pods.push(await startPod(o, deployment, { ...opts, index }));
    return pods;
  } catch (err) {
    for (const p of pods) await p.stop();
    throw err;
  }
}

export interface ChartInstall {
  objects: Manifest[];
  /** the pods of every rendered Deployment, by Deployment name */
  pods: Record<string, RunningPod[]>;
  /** pod `index` of a Deployment (default: the controller's, `zvm-operator`) */
  pod(index?: number, deployment?: string): RunningPod;
  stop(): Promise<void>;
}

/**
 * `helm template` (release zvm-operator unless given) with the given values into the env's namespace,
 * applied to the apiserver (RBAC, ServiceAccounts, the token Secret, ...), and the pods of every rendered
 * Deployment started as rendered.
 */
export interface InstallOptions extends Omit<RenderOptions, 'namespace' | 'includeCrds'> {
  /** which rendered Deployments get pods; default all */
  start?: (deployment: string) => boolean;
  /** as StartPodOptions.diagnosticEnv, for every pod */
  diagnosticEnv?: Record<string, string>;
}

export async function installChart(o: OperatorEnv, render: InstallOptions = {}): Promise<ChartInstall> {
  const objects = await renderChart({ ...render, namespace: o.namespace });
  await kubectlOk(['apply', '-f', '-'], { kubeconfig: o.kubeconfig, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }) });
  const pods: Record<string, RunningPod[]> = {};
  const release = render.release ?? 'zvm-operator';
  const install: ChartInstall = {
    objects,
    pods,
    pod(index = 0, deployment = release) {
      const found = pods[deployment]?.[index];
      if (!found) throw new ZvmError('NOT_FOUND', `no pod ${index} of Deployment ${deployment} (have ${Object.keys(pods).join(', ')})`);
      return found;
    },
    async stop() {
      for (const list of Object.values(pods)) for (const p of list) await p.stop();
    },
  };
  try {
    for (const d of objects.filter((m) => m.kind === 'Deployment' && (render.start?.(m.metadata.name) ?? true))) pods[d.metadata.name] = await startDeployment(o, d, { diagnosticEnv: render.diagnosticEnv });
    return install;
  } catch (err) {
    await install.stop();
    throw err;
  }
}
