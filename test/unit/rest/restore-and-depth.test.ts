/** The undo patch of a failed request and the JSON depth guard (pure functions). */
import { computeJsonDepth } from '../../../src/rest/json-body.js';
import { computeRestorePatch } from '../../../src/rest/guests/restore.js';

describe('computeRestorePatch', () => {
  it('puts back changed fields and removes added ones', () => {
    const before = { vcpus: 1, powerState: 'Off' };
    const patch = { vcpus: 3, image: 'rhel', imageDeploy: { vdev: '0100' } };
    const failed = { vcpus: 3, powerState: 'Off', image: 'rhel', imageDeploy: { vdev: '0100' } };
    expect(computeRestorePatch(before, patch, failed)).toEqual({ vcpus: 1, image: null, imageDeploy: null });
  });

  it('restores nested fields key by key', () => {
    const before = { imageDeploy: { vdev: '0100', remoteHost: 'a@b' } };
    const patch = { imageDeploy: { vdev: '0200', transportFiles: '/x' } };
    const failed = { imageDeploy: { vdev: '0200', remoteHost: 'a@b', transportFiles: '/x' } };
    expect(computeRestorePatch(before, patch, failed)).toEqual({ imageDeploy: { vdev: '0100', transportFiles: null } });
  });

  it('leaves a field someone changed since, and has nothing to do when nothing changed', () => {
    expect(computeRestorePatch({ vcpus: 1 }, { vcpus: 3 }, { vcpus: 4 })).toBeUndefined();
    expect(computeRestorePatch({ vcpus: 1 }, { vcpus: 1 }, { vcpus: 1 })).toBeUndefined();
  });
});

describe('computeJsonDepth', () => {
  it.each([
    ['{}', 1],
    ['{"a": [1, {"b": []}]}', 4],
    ['{"a": "[[[[{{{{"}', 1],
    ['{"a": "quote \\" [[["}', 1],
    ['1', 0],
  ])('%s has depth %d', (text, depth) => {
    expect(computeJsonDepth(text)).toBe(depth);
  });
});
