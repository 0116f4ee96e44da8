/** Typed views of the parts of rendered manifests the chart tests look at. */
import type { Manifest } from './render.js';

export interface Container {
  name: string;
  image: string;
  args?: string[];
  ports?: { name: string; containerPort: number }[];
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  livenessProbe?: unknown;
  readinessProbe?: unknown;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  env?: { name: string }[];
}

export interface PodSpec {
  serviceAccountName: string;
  securityContext?: Record<string, unknown>;
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string; items?: { key: string; path: string }[] }; emptyDir?: unknown }[];
}

export interface DeploymentSpec {
  replicas: number;
  selector: { matchLabels: Record<string, string> };
  template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
}

export function deploymentSpec(m: Manifest): DeploymentSpec {
  return m.spec as DeploymentSpec;
}

export function podSpec(m: Manifest): PodSpec {
  return deploymentSpec(m).template.spec;
}

export function container(m: Manifest, name: string): Container | undefined {
  return podSpec(m).containers.find((c) => c.name === name);
}

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export function rules(m: Manifest): Rule[] {
  return (m.rules as Rule[] | undefined) ?? [];
}

/** The restricted Pod Security Standard plus a read-only root filesystem, for pod and containers. */
export function restrictedViolations(spec: PodSpec): string[] {
  const out: string[] = [];
  const pod = spec.securityContext ?? {};
  if (pod.runAsNonRoot !== true) out.push('pod runAsNonRoot');
  if (typeof pod.runAsUser !== 'number' || pod.runAsUser === 0) out.push('pod runAsUser numeric non-zero');
  if ((pod.seccompProfile as { type?: string } | undefined)?.type !== 'RuntimeDefault') out.push('pod seccompProfile');
  for (const c of spec.containers) {
    const sc = c.securityContext ?? {};
    if (sc.allowPrivilegeEscalation !== false) out.push(`${c.name} allowPrivilegeEscalation`);
    if (sc.readOnlyRootFilesystem !== true) out.push(`${c.name} readOnlyRootFilesystem`);
    if (sc.runAsNonRoot !== true) out.push(`${c.name} runAsNonRoot`);
    if (JSON.stringify((sc.capabilities as { drop?: string[] } | undefined)?.drop) !== '["ALL"]') out.push(`${c.name} capabilities.drop ALL`);
    if ((sc.seccompProfile as { type?: string } | undefined)?.type !== 'RuntimeDefault') out.push(`${c.name} seccompProfile`);
    if (!c.resources?.requests || !c.resources.limits) out.push(`${c.name} resources`);
    if (!c.livenessProbe || !c.readinessProbe) out.push(`${c.name} probes`);
    if (!c.volumeMounts?.some((v) => v.mountPath === '/tmp')) out.push(`${c.name} writable /tmp`);
  }
  return out;
}
