/**
 * The generated CRDs on a real kube-apiserver (issue 37): every kind of zvm.dev is served at v1beta1
 * and v1alpha1, the same objects through both, and a request naming v1alpha1 is answered with the CRD's
 * deprecation warning (`Warning: 299 - "…"`), which kubectl prints; v1beta1 requests get none.
 */
import { stringify } from 'yaml';
import { deprecationWarning, KINDS } from '../../../src/api/index.js';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';
import { apiserverGet, apiserverWithCrds } from './apiserver.js';

const suite = apiserverWithCrds();
const { opts } = suite;
const ours = Object.values(KINDS).filter((d) => !d.version);

const guest = (apiVersion: string, name: string) => ({
  apiVersion, kind: 'ZGuest', metadata: { name, namespace: 'default' }, spec: { userid: name.toUpperCase(), vcpus: 1, memory: '1G' },
});

interface Listed { items: { apiVersion: string; metadata: { name: string; uid: string }; spec: unknown }[] }

test('kubectl get zguests.v1alpha1.zvm.dev and zguests.v1beta1.zvm.dev list the same objects, each at its version', async () => {
  await kubectlOk(['apply', '-f', '-'], opts(stringify(guest('zvm.dev/v1alpha1', 'alpha01'))));
  await kubectlOk(['apply', '-f', '-'], opts(stringify(guest('zvm.dev/v1beta1', 'beta01'))));
  const list = async (version: string) => {
    const r = await kubectl(['get', `zguests.${version}.zvm.dev`, '-o', 'json'], opts());
    expect(r.code).toBe(0);
    return { listed: JSON.parse(r.stdout) as Listed, stderr: r.stderr };
  };
  const [alpha, beta] = [await list('v1alpha1'), await list('v1beta1')];
  const same = (l: Listed) => l.items.map((i) => [i.metadata.name, i.metadata.uid, i.spec]);
  expect(same(alpha.listed)).toEqual(same(beta.listed));
  expect(alpha.listed.items.map((i) => i.metadata.name)).toEqual(['alpha01', 'beta01']);
  expect(new Set(alpha.listed.items.map((i) => i.apiVersion))).toEqual(new Set(['zvm.dev/v1alpha1']));
  expect(new Set(beta.listed.items.map((i) => i.apiVersion))).toEqual(new Set(['zvm.dev/v1beta1']));
  // kubectl prints the apiserver's warning on stderr, as it does for a deprecated built-in API
  expect(alpha.stderr).toContain(`Warning: ${deprecationWarning('ZGuest')}`);
  expect(beta.stderr).not.toContain('Warning');
}, 60_000);

test.each(ours.map((d) => [d.kind, d] as const))('a v1alpha1 request for %s gets the deprecation warning naming v1beta1; a v1beta1 one none', async (kind, def) => {
  const alpha = await apiserverGet(suite.env.adminKubeconfig, `/apis/zvm.dev/v1alpha1/${def.plural}`);
  expect([alpha.status, alpha.warning]).toEqual([200, `299 - "zvm.dev/v1alpha1 ${kind} is deprecated; use zvm.dev/v1beta1 ${kind}"`]);
  const beta = await apiserverGet(suite.env.adminKubeconfig, `/apis/zvm.dev/v1beta1/${def.plural}`);
  expect([beta.status, beta.warning]).toEqual([200, undefined]);
});
