/**
 * Cluster API's own controllers as processes against a test kube-apiserver: the CRDs and webhook
 * configurations from the module's config (what clusterctl's components hold after kustomize), with every
 * webhook rewritten from the in-cluster Service to `url: https://127.0.0.1:<port>/…` and the test CA as
 * its caBundle, and the managers serving them with a loopback certificate issued by the test CA (what
 * cert-manager does in a real management cluster). The managers use the admin kubeconfig (no RBAC here).
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import { issue } from '../kube/pki.js';
import { kubectlOk } from '../kube/kubectl.js';
import { freePorts, spawnLogged, stopProcess, waitUntil, type LoggedProcess } from '../kube/processes.js';
import type { CapiToolchain } from './toolchain.js';

/** A provider of the module: its config folder, binary and the prefix kustomize gives its objects. */
export interface CapiProvider {
  name: string;
  part: string;
  binary: string;
  prefix: string;
}

export const CORE: CapiProvider = { name: 'capi', part: 'core', binary: 'capi-manager', prefix: 'capi-' };
export const KUBEADM_BOOTSTRAP: CapiProvider = {
  name: 'capi-kubeadm-bootstrap', part: 'bootstrap/kubeadm', binary: 'capi-kubeadm-bootstrap-manager', prefix: 'capi-kubeadm-bootstrap-',
};

export interface CapiManagers {
  processes: LoggedProcess[];
  stop(): Promise<void>;
}

type Obj = Record<string, unknown> & { kind: string; metadata: { name: string; labels?: Record<string, string> } };
interface ClientConfig { service?: { path?: string }; url?: string; caBundle?: string }

async function docs(path: string): Promise<Obj[]> {
  return parseAllDocuments(await readFile(path, 'utf8')).map((d) => d.toJSON() as Obj).filter((o) => o?.kind);
}

/** The Service reference replaced by the loopback URL the manager serves. */
function loopback(port: number, caBundle: string, path: string): ClientConfig {
  return { url: `https://127.0.0.1:${port}${path}`, caBundle };
}

/** The `labels[].pairs` of a kustomization (the contract labels of the CRDs, the provider label). */
async function kustomizeLabels(path: string): Promise<Record<string, string>> {
  const k = parseYaml(await readFile(path, 'utf8')) as { labels?: { pairs?: Record<string, string> }[] };
  return Object.assign({}, ...(k.labels ?? []).map((l) => l.pairs ?? {})) as Record<string, string>;
}

/** The provider's CRDs with conversion through its webhook, and its admission webhooks, all on `port`. */
async function providerObjects(configDir: string, p: CapiProvider, port: number, caBundle: string): Promise<Obj[]> {
  const crdDir = join(configDir, p.part, 'crd', 'bases');
  const crds = (await Promise.all((await readdir(crdDir)).filter((f) => f.endsWith('.yaml')).map((f) => docs(join(crdDir, f))))).flat();
  const providerLabels = await kustomizeLabels(join(configDir, p.part, 'default', 'kustomization.yaml'));
  const crdLabels = { ...providerLabels, ...await kustomizeLabels(join(configDir, p.part, 'crd', 'kustomization.yaml')) };
  for (const crd of crds) {
    crd.metadata = { ...crd.metadata, labels: { ...crd.metadata.labels, ...crdLabels } };
    (crd.spec as Record<string, unknown>).conversion = {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: loopback(port, caBundle, '/convert') },
    };
  }
  const hooks = await docs(join(configDir, p.part, 'webhook', 'manifests.yaml'));
  for (const h of hooks) {
    h.metadata = { ...h.metadata, name: `${p.prefix}${h.metadata.name}`, labels: providerLabels };
    for (const w of h.webhooks as { clientConfig: ClientConfig }[]) w.clientConfig = loopback(port, caBundle, w.clientConfig.service?.path ?? '/');
  }
  return [...crds, ...hooks];
}

/**
 * Installs the providers' CRDs and webhooks and starts their managers (webhook server, health probe on
 * loopback ports); resolves once every manager is ready.
 */
export async function startCapiManagers(o: { kubeconfig: string; tempDir: string }, capi: CapiToolchain, providers: CapiProvider[]): Promise<CapiManagers> {
  const pkiDir = o.tempDir;
  const certDir = join(pkiDir, 'capi-webhook');
  await mkdir(certDir, { recursive: true });
  await issue(certDir, 'tls', '/CN=capi-webhook', [
    'basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature,keyEncipherment', 'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost', '',
  ].join('\n'), { cert: join(pkiDir, 'ca.crt'), key: join(pkiDir, 'ca.key') });
  const caBundle = (await readFile(join(pkiDir, 'ca.crt'))).toString('base64');
  const processes: LoggedProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const p of processes.reverse()) await stopProcess(p);
  };
  try {
    for (const p of providers) {
      const [webhookPort, healthPort] = await freePorts(2);
      // server-side: the CRDs are larger than the last-applied annotation may hold
      const objects = await providerObjects(capi.configDir, p, webhookPort, caBundle);
      await kubectlOk(['apply', '--server-side', '--force-conflicts', '-f', '-'], { kubeconfig: o.kubeconfig, input: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }), timeoutMs: 120_000 });
      const crdNames = objects.filter((x) => x.kind === 'CustomResourceDefinition').map((x) => `crd/${x.metadata.name}`);
      await kubectlOk(['wait', '--for=condition=Established', ...crdNames, '--timeout=60s'], { kubeconfig: o.kubeconfig, timeoutMs: 70_000 });
      const proc = spawnLogged(p.name, join(capi.binDir, p.binary), [
        `--kubeconfig=${o.kubeconfig}`, `--webhook-port=${webhookPort}`, `--webhook-cert-dir=${certDir}`,
        `--health-addr=127.0.0.1:${healthPort}`, '--diagnostics-address=127.0.0.1:0', '--insecure-diagnostics', '--leader-elect=false',
        '--sync-period=1m', '--v=2',
      ], join(o.tempDir, `${p.name}.log`));
      processes.push(proc);
      await waitUntil(async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).ok, { what: `${p.name} ready`, timeoutMs: 120_000, watch: [proc], intervalMs: 500 });
    }
    return { processes, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
