/**
 * The storage-version migration of docs/user-guide/upgrade.md, as a user runs it with kubectl: every
 * object of every zvm.dev CRD read and written back unchanged (the apiserver then stores it at the
 * storage version), then the CRD's status.storedVersions set to the storage version alone.
 */
import { kubectlOk } from '../../kube/kubectl.js';

interface Crd { metadata: { name: string }; spec: { versions: { name: string; storage: boolean }[] }; status: { storedVersions: string[] } }

export async function zvmCrds(kubeconfig: string): Promise<Crd[]> {
  const all = JSON.parse(await kubectlOk(['get', 'crd', '-o', 'json'], { kubeconfig })) as { items: Crd[] };
  return all.items.filter((c) => c.metadata.name.endsWith('.zvm.dev'));
}

export async function migrateStorage(kubeconfig: string): Promise<void> {
  for (const crd of await zvmCrds(kubeconfig)) {
    const storage = crd.spec.versions.find((v) => v.storage)?.name;
    const objects = await kubectlOk(['get', crd.metadata.name, '-A', '-o', 'json'], { kubeconfig });
    if ((JSON.parse(objects) as { items: unknown[] }).items.length > 0) await kubectlOk(['replace', '-f', '-'], { kubeconfig, input: objects });
    await kubectlOk(['patch', 'crd', crd.metadata.name, '--subresource=status', '--type=merge', '-p', JSON.stringify({ status: { storedVersions: [storage] } })], { kubeconfig });
  }
}
