/** The deploy step of spec.image: planned once, only while off, before power-on; ImageDeployed in status. */
import type { ZGuest } from '../../../../src/api/index.js';
import { planImageDeploy } from '../../../../src/controllers/zguest/plan-image.js';
import { computeDeployedImage, imageDeployedCondition } from '../../../../src/controllers/zguest/status-image.js';
import type { ResolvedDisk } from '../../../../src/controllers/zguest/definition.js';
import { withProgressOf } from '../../../../src/controllers/zguest/status.js';
import { afterImage } from '../../../../src/hypervisor/mgmt/image-deploy.js';

function guest(spec: Partial<ZGuest['spec']>, deployedImage?: string): ZGuest {
  return {
    apiVersion: 'zvm.dev/v1beta1', kind: 'ZGuest', metadata: { name: 'g', namespace: 'default', generation: 1 },
    spec: { userid: 'LINUX01', vcpus: 1, memory: '1G', ...spec },
    ...(deployedImage ? { status: { deployedImage } } : {}),
  };
}
const disks = [{ vdev: '0100', boot: true }, { vdev: '0101', boot: false }] as unknown as ResolvedDisk[];

describe('planImageDeploy', () => {
  it('deploys spec.image onto the boot disk of a logged-off guest', () => {
    expect(planImageDeploy(guest({ image: 'rhel86' }), disks, 'off').steps).toEqual([{ op: 'deployImage', image: 'rhel86', vdev: '0100' }]);
  });

  it('carries the target vdev and transport files of spec.imageDeploy', () => {
    const g = guest({ image: 'rhel86', imageDeploy: { vdev: '101', transportFiles: '/tmp/cfg.tgz', remoteHost: 'u@h.example' } });
    expect(planImageDeploy(g, disks, 'off').steps).toEqual([{ op: 'deployImage', image: 'rhel86', vdev: '0101', transportFiles: '/tmp/cfg.tgz', remoteHost: 'u@h.example' }]);
  });

  it('does nothing when the image is already deployed (names are case-insensitive) or none is asked for', () => {
    expect(planImageDeploy(guest({ image: 'RHEL86' }, 'rhel86'), disks, 'on')).toEqual({ steps: [], problems: [] });
    expect(planImageDeploy(guest({}), disks, 'off')).toEqual({ steps: [], problems: [] });
  });

  it('waits for a stop instead of writing the disk of a running guest', () => {
    const plan = planImageDeploy(guest({ image: 'new' }, 'old'), disks, 'on');
    expect(plan.steps).toEqual([]);
    expect(plan.problems).toEqual([expect.objectContaining({ reason: 'DeployRequiresStop', severity: 'blocked' })]);
  });
});

describe('ImageDeployed status', () => {
  it('records the image of an applied deploy step and reports it deployed', () => {
    const g = guest({ image: 'rhel86' });
    const deployed = computeDeployedImage(g, [{ op: 'deployImage', image: 'rhel86', vdev: '0100' }]);
    expect(deployed).toBe('rhel86');
    expect(imageDeployedCondition(g, deployed, [])).toMatchObject({ status: 'True', reason: 'Deployed' });
  });

  it('is False while deploying or blocked, and absent when no image was ever involved', () => {
    expect(imageDeployedCondition(guest({ image: 'x' }), undefined, [])).toMatchObject({ status: 'False', reason: 'Deploying' });
    expect(imageDeployedCondition(guest({ image: 'x' }), 'y', [{ reason: 'DeployRequiresStop', severity: 'blocked', message: 'm' }])).toMatchObject({ status: 'False', reason: 'DeployRequiresStop' });
    expect(imageDeployedCondition(guest({}), undefined, [])).toBeUndefined();
  });
});

describe('deploy progress', () => {
  it('counts the transport files on top of the image bytes, and passes no callback on when there is none', () => {
    const seen: { bytes: number; total?: number }[] = [];
    const after = afterImage(1000, (p) => seen.push(p))!;
    after({ bytes: 10, total: 40 });
    after({ bytes: 40 });
    expect(seen).toEqual([{ bytes: 1010, total: 1040 }, { bytes: 1040 }]);
    expect(afterImage(1000, undefined)).toBeUndefined();
  });

  it('the final status carries the progress the current object holds, never a stale one of an earlier deploy', () => {
    const sample = { operation: 'deploy' as const, bytesDone: 5, summary: 'deploy: 5 B', updatedAt: '2026-01-01T00:00:00.000Z' };
    const stale = { ...sample, bytesDone: 1, updatedAt: '2025-01-01T00:00:00.000Z' };
    const current = { ...guest({ image: 'rhel86' }), status: { progress: sample } };
    expect(withProgressOf(current, { phase: 'Ready', progress: stale })).toEqual({ phase: 'Ready', progress: sample });
    expect(withProgressOf(guest({}), { phase: 'Ready', progress: stale })).toEqual({ phase: 'Ready' });
  });
});
