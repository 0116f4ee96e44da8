/**
 * Release 0.1.0 as captured in test/fixtures/release-0.1.0/ (see its README): the objects its operator
 * wrote, with their status, and how to put them back on a fresh apiserver as a backup restore would
 * (Velero's way): create the objects, give owned objects the new uid of their owner, then write each
 * status through the status subresource. The apiserver gives every object a new uid, so the owner marks
 * on the host are renamed to match (on the release's cluster they named the same objects). The one thing that differs from the captured cluster is the
 * simulated host's address (loopback ports are picked per run): the ZHost's ports and its status
 * endpoint are set to the running host's.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RELEASE_0_1_0 } from '../../fixtures/paths.js';
import { kubectlOk } from '../../kube/kubectl.js';

export const RELEASE = '0.1.0';
export const RELEASE_COMMIT = 'f41a5473fd24e7f068925fa162ec16e2c738495f';
export const FIXTURE_DIR = RELEASE_0_1_0;
export const OPERATOR_NAMESPACE = 'zvm-system';
export const GUEST_NAMESPACE = 'apps';

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    labels?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string }[];
    [key: string]: unknown;
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * Metadata the apiserver assigns: dropped at capture, assigned anew at restore. The uid is kept: the
 * owner mark each guest's directory entry carries names it (restoreObjects answers old → new).
 */
const SERVER_METADATA = ['resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'selfLink'];

/** An object as listed from the apiserver, without what the apiserver assigns (uid and status kept). */
export function portable(o: KubeObject): KubeObject {
  const metadata = Object.fromEntries(Object.entries(o.metadata).filter(([k]) => !SERVER_METADATA.includes(k))) as KubeObject['metadata'];
  const annotations = { ...(metadata.annotations as Record<string, string> | undefined) };
  delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
  if (Object.keys(annotations).length === 0) delete metadata.annotations;
  else metadata.annotations = annotations;
  return { ...o, metadata };
}

export function readFixtureObjects(): KubeObject[] {
  return (JSON.parse(readFileSync(join(FIXTURE_DIR, 'objects.json'), 'utf8')) as { items: KubeObject[] }).items;
}

/** The ZHost pointed at the host running now (ports in spec and in the status endpoint). */
export function atHost(o: KubeObject, ports: { smapiPort: number; sshPort: number }): KubeObject {
  if (o.kind !== 'ZHost') return o;
  const spec = o.spec as { smapi: Record<string, unknown>; management?: Record<string, unknown> };
  const status = o.status ? { ...o.status, endpoint: `smapi://127.0.0.1:${ports.smapiPort}` } : undefined;
  return {
    ...o,
    spec: { ...spec, smapi: { ...spec.smapi, port: ports.smapiPort }, ...(spec.management ? { management: { ...spec.management, port: ports.sshPort } } : {}) },
    ...(status ? { status } : {}),
  };
}

const list = (items: unknown[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const resourceOf = (o: KubeObject): string => `${o.kind.toLowerCase()}.${o.apiVersion.split('/')[0]}/${o.metadata.name}`;

/**
 * Creates the objects (owners first, their new uid in the owned objects' ownerReferences), then writes
 * every captured status; answers each captured uid's new uid.
 */
export async function restoreObjects(kubeconfig: string, objects: KubeObject[]): Promise<Map<string, string>> {
  const byKey = new Map<string, string>();
  const renamed = new Map<string, string>();
  const owned = (o: KubeObject) => (o.metadata.ownerReferences?.length ?? 0) > 0;
  for (const batch of [objects.filter((o) => !owned(o)), objects.filter(owned)]) {
    const items = batch.map((o) => {
      const { status: _status, ...rest } = o;
      const { uid: _uid, ...metadata } = rest.metadata;
      const ownerReferences = o.metadata.ownerReferences?.map((r) => ({ ...r, uid: uidOf(byKey, r.kind, r.name) }));
      return { ...rest, metadata: { ...metadata, ...(ownerReferences ? { ownerReferences } : {}) } };
    });
    const created = await kubectlOk(['create', '-f', '-', '-o', 'jsonpath={.kind}/{.metadata.name} {.metadata.uid}{"\\n"}'], { kubeconfig, input: list(items) });
    for (const [key, uid] of created.trim().split('\n').map((line) => line.split(' '))) byKey.set(key as string, uid as string);
  }
  for (const o of objects) if (o.metadata.uid) renamed.set(o.metadata.uid, uidOf(byKey, o.kind, o.metadata.name));
  for (const o of objects.filter((x) => x.status)) {
    const ns = o.metadata.namespace ? ['-n', o.metadata.namespace] : [];
    await kubectlOk(['patch', resourceOf(o), ...ns, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: o.status })], { kubeconfig });
  }
  return renamed;
}

/** The host's owner marks (`* ZVM-OPERATOR OWNER <UID>`) renamed to the restored objects' uids, in its state file. */
export function renameOwnerMarks(stateFile: string, renamed: Map<string, string>): void {
  let text = readFileSync(stateFile, 'utf8');
  for (const [from, to] of renamed) text = text.replaceAll(`OWNER ${from.toUpperCase()}`, `OWNER ${to.toUpperCase()}`);
  writeFileSync(stateFile, text);
}

function uidOf(uids: Map<string, string>, kind: string, name: string): string {
  const uid = uids.get(`${kind}/${name}`);
  if (!uid) throw new Error(`owner ${kind}/${name} is not among the restored objects`);
  return uid;
}
