/**
 * The apiserver enforces the same rules as our validators: the generated CRDs carry them as
 * structural schema and CEL, and a real kube-apiserver refuses what the embedded store refuses.
 */
import { stringify } from 'yaml';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';
import { kubectl, kubectlOk } from '../../kube/kubectl.js';

let env: KubeTestEnv;
const opts = () => ({ kubeconfig: env.adminKubeconfig, timeoutMs: 60_000 });

beforeAll(async () => {
  env = await startKubeTestEnv();
  await kubectlOk(['apply', '-f', 'crds/'], opts());
  await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], opts());
}, 240_000);

afterAll(async () => {
  await env?.stop();
});

async function apply(obj: unknown) {
  return kubectl(['apply', '-f', '-'], { ...opts(), input: stringify(obj) });
}

const guest = (spec: Record<string, unknown>) => ({
  apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'rules01', namespace: 'default' },
  spec: { userid: 'RULES01', vcpus: 1, memory: '1G', ...spec },
});

describe('CRD rules on a real kube-apiserver', () => {
  it('refuses a ZGuest with 65 vCPUs or a 9-character userid', async () => {
    const tooMany = await apply(guest({ vcpus: 65 }));
    expect(tooMany.code).not.toBe(0);
    expect(tooMany.stderr).toMatch(/spec\.vcpus/);
    const longId = await apply(guest({ userid: 'ABCDEFGHI' }));
    expect(longId.code).not.toBe(0);
    expect(longId.stderr).toMatch(/spec\.userid/);
  });

  it('keeps a ZGuest userid immutable', async () => {
    expect((await apply(guest({}))).code).toBe(0);
    const changed = await apply(guest({ userid: 'OTHER01' }));
    expect(changed.code).not.toBe(0);
    expect(changed.stderr).toContain('userid is immutable');
  });

  it('takes a ZGuest that leaves vcpus and memory to its ZGuestClass, and refuses one with neither', async () => {
    const cls = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuestClass', metadata: { name: 'small' }, spec: { vcpus: 2, memory: '4G', osVersion: 'rhel9.2' } };
    expect((await apply(cls)).code).toBe(0);
    const named = { apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'rules02', namespace: 'default' }, spec: { userid: 'RULES02', class: 'small' } };
    expect((await apply(named)).code).toBe(0);
    const bare = await apply({ ...named, metadata: { name: 'rules03', namespace: 'default' }, spec: { userid: 'RULES03' } });
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toContain('vcpus and memory are required unless spec.class names a ZGuestClass');
  });

  it('refuses a ZVswitch with a router on an ETHERNET switch', async () => {
    const res = await apply({
      apiVersion: 'zvm.dev/v1beta1', kind: 'ZVswitch', metadata: { name: 'vsw1' },
      spec: { networkType: 'ETHERNET', router: 'PRIROUTER' },
    });
    expect(res.code).not.toBe(0);
    expect(res.stderr.toLowerCase()).toContain('router');
  });

  it('refuses a ZImage whose file URL climbs out of its directory, and one with two sources', async () => {
    const image = (source: Record<string, unknown>) => ({ apiVersion: 'zvm.dev/v1beta1', kind: 'ZImage', metadata: { name: 'img1' }, spec: { source } });
    const climbing = await apply(image({ import: { url: 'file:///var/images/../../etc/passwd', osVersion: 'rhel8.6' } }));
    expect(climbing.code).not.toBe(0);
    expect(climbing.stderr).toContain("must not contain '..'");
    const both = await apply(image({ import: { url: 'https://example.invalid/i.img', osVersion: 'rhel8.6' }, capture: { guest: 'LINUX01' } }));
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('exactly one of import and capture');
    expect((await apply(image({ import: { url: 'file:///var/images/rhel.img', osVersion: 'rhel8.6' } }))).code).toBe(0);
  });

  describe('YAML a person writes', () => {
    /** A ZGuest manifest as text, the way it sits in a Git repository (kubectl reads YAML 1.1). */
    const manifest = (name: string, extra: string) => `apiVersion: zvm.dev/v1beta1
kind: ZGuest
metadata:
  name: ${name}
  namespace: default
spec:
  userid: ${name.toUpperCase()}
  vcpus: 1
  memory: 1G
${extra}`;
    const applyText = (text: string) => kubectl(['apply', '-f', '-'], { ...opts(), input: text });
    /** The field lines of a refusal ("* path: message" when there are several). */
    const fieldLines = (stderr: string) => stderr.trim().split('\n').filter((l) => /^\* |is invalid: \S/.test(l));

    it('takes power states without quotes', async () => {
      for (const [name, power] of [['yaml01', 'Running'], ['yaml02', 'Stopped'], ['yaml03', 'Paused']]) {
        const r = await applyText(manifest(name, `  powerState: ${power}\n`));
        expect(r.stderr).toBe('');
        expect(r.code).toBe(0);
      }
      expect((await applyText(manifest('yaml04', '  powerState: "Off"\n'))).code).toBe(0);
    });

    it('says to quote an unquoted device number, in one line', async () => {
      const r = await applyText(manifest('yaml05', '  disks:\n    - size: 1G\n      vdev: 1000\n'));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('spec.disks[0].vdev');
      expect(r.stderr).toContain('a device number is text: quote it, e.g. "0100"');
      expect(r.stderr).not.toContain('<nil>');
      expect(fieldLines(r.stderr)).toHaveLength(1);
      const octal = await applyText(manifest('yaml06', '  dedicate:\n    - 0100\n'));
      expect(octal.stderr).toContain('quote it');
      expect(octal.stderr).not.toContain('<nil>');
    });

    it('refuses a wrong power state in one line, without the note about unchecked rules', async () => {
      const r = await applyText(manifest('yaml07', '  powerState: Sleeping\n'));
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain('spec.powerState');
      expect(r.stderr).not.toContain('<nil>');
      expect(fieldLines(r.stderr)).toHaveLength(1);
    });
  });
});
