/**
 * clusterctl's infrastructure-components.yaml for the z/VM provider (docs/kubernetes-on-zvm.md), generated
 * from src/api: one Namespace, every CRD (the operator's zvm.dev kinds and the Cluster API kinds), RBAC
 * (the manager's own, and the aggregated role that lets Cluster API's core manager use our kinds), and the
 * operator's controller running with --capi in a container named `manager`. Pure.
 */
import { parse } from 'yaml';
import { GROUP } from '../api/common.js';
import { INFRA_GROUP } from '../api/capi-common.js';
import { groupOf, KINDS } from '../api/kinds.js';
import { renderCrds } from '../api/render-crds.js';

export const PROVIDER_NAME = 'zvm';
export const PROVIDER_LABEL = { 'cluster.x-k8s.io/provider': `infrastructure-${PROVIDER_NAME}` };
export const COMPONENTS_NAMESPACE = 'capzvm-system';
const NAME = 'capzvm-controller-manager';
const SA = 'capzvm-manager';
/** What clusterctl substitutes: ${VAR:=default} keeps a default when the variable is not set. */
export const IMAGE = '${ZVM_CONTROLLER_IMAGE:=ghcr.io/zvm-operator/zvm-operator:0.1.0}';

type Obj = Record<string, unknown>;
const meta = (name: string, namespaced: boolean, extra: Obj = {}): Obj => ({ name, ...(namespaced ? { namespace: COMPONENTS_NAMESPACE } : {}), labels: { ...PROVIDER_LABEL }, ...extra });
const plurals = (group: string): string[] => Object.values(KINDS).filter((d) => groupOf(d) === group).map((d) => d.plural).sort();

/** The manager's rules: our kinds, Cluster API's Machines and Clusters (read), bootstrap and host Secrets (read), Events and Leases. */
export function managerRules(): Obj[] {
  const ours = plurals(GROUP);
  const infra = plurals(INFRA_GROUP);
  const sub = (list: string[], part: string) => list.map((p) => `${p}/${part}`);
  return [
    { apiGroups: [GROUP], resources: ours, verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    { apiGroups: [GROUP], resources: ['zguests', 'zguestactions'], verbs: ['create', 'delete'] },
    { apiGroups: [GROUP], resources: [...sub(ours, 'status'), ...sub(ours, 'finalizers')], verbs: ['get', 'update', 'patch'] },
    { apiGroups: [INFRA_GROUP], resources: infra, verbs: ['get', 'list', 'watch', 'update', 'patch'] },
    { apiGroups: [INFRA_GROUP], resources: [...sub(infra, 'status'), ...sub(infra, 'finalizers')], verbs: ['get', 'update', 'patch'] },
    { apiGroups: ['cluster.x-k8s.io'], resources: ['clusters', 'machines'], verbs: ['get', 'list', 'watch'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list', 'create', 'update', 'delete'] },
    // the storage-version migration at start-up (store/kube/storage-version.ts), on our CRDs only
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], resourceNames: ours.map((p) => `${p}.${GROUP}`), verbs: ['get'] },
    { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions/status'], resourceNames: ours.map((p) => `${p}.${GROUP}`), verbs: ['patch'] },
  ];
}

function deployment(): Obj {
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: meta(NAME, true),
    spec: {
      replicas: 1,
      selector: { matchLabels: { 'app.kubernetes.io/name': NAME } },
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': NAME, ...PROVIDER_LABEL } },
        spec: {
          serviceAccountName: SA,
          terminationGracePeriodSeconds: 30,
          securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [{
            name: 'manager',
            image: IMAGE,
            imagePullPolicy: 'IfNotPresent',
            args: managerArgs(),
            env: [
              { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
              { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            ],
            ports: [{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }, { name: 'probes', containerPort: 8081, protocol: 'TCP' }],
            livenessProbe: { httpGet: { path: '/healthz', port: 'probes' }, initialDelaySeconds: 10, periodSeconds: 20 },
            readinessProbe: { httpGet: { path: '/readyz', port: 'probes' }, periodSeconds: 10 },
            securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] }, seccompProfile: { type: 'RuntimeDefault' } },
            volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
          }],
          volumes: [{ name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

/**
 * The manager's command line. Cluster API's conventions: --namespace (where the provider's Leases and
 * host Secrets live; clusterctl's target namespace). No --watch-filter here: clusterctl counts a variable
 * whose default is empty (`${ZVM_WATCH_FILTER:=}`) as unset and refuses to install the components
 * (yamlprocessor/simple_processor.go); the filter is set on the Deployment (env ZVM_WATCH_FILTER).
 */
export function managerArgs(): string[] {
  return [
    'controller', '--capi',
    '--namespace=$(POD_NAMESPACE)',
    '--metrics-bind-address=:8080', '--health-probe-bind-address=:8081',
    '--leader-election-id=capzvm-leader',
    '--sim-state-dir=/tmp',
  ];
}

/** Every object of the components file, in apply order. */
export function componentObjects(): Obj[] {
  const rbac = 'rbac.authorization.k8s.io/v1';
  const crds = [...renderCrds().values()].map((text) => {
    const crd = parse(text) as Obj & { metadata: Obj & { labels?: Obj } };
    return { ...crd, metadata: { ...crd.metadata, labels: { ...crd.metadata.labels, ...PROVIDER_LABEL } } };
  });
  const infra = plurals(INFRA_GROUP);
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: COMPONENTS_NAMESPACE, labels: { ...PROVIDER_LABEL } } },
    ...crds,
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(SA, true) },
    { apiVersion: rbac, kind: 'ClusterRole', metadata: meta('capzvm-manager-role', false), rules: managerRules() },
    {
      apiVersion: rbac, kind: 'ClusterRoleBinding', metadata: meta('capzvm-manager-rolebinding', false),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'capzvm-manager-role' },
      subjects: [{ kind: 'ServiceAccount', name: SA, namespace: COMPONENTS_NAMESPACE }],
    },
    {
      // Cluster API's core manager reads and writes infrastructure objects through this aggregated role
      apiVersion: rbac, kind: 'ClusterRole',
      metadata: { name: 'capzvm-aggregated-manager-role', labels: { ...PROVIDER_LABEL, 'cluster.x-k8s.io/aggregate-to-manager': 'true' } },
      rules: [{ apiGroups: [INFRA_GROUP], resources: [...infra, ...infra.map((p) => `${p}/status`)], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] }],
    },
    deployment(),
  ];
}
