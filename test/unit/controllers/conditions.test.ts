import type { Condition } from '../../../src/api/index.js';
import { mergeConditions, sameStatus } from '../../../src/controllers/conditions.js';

const at = (time: string, status: Condition['status'] = 'True'): Condition => ({ type: 'Ready', status, reason: 'R', message: 'm', lastTransitionTime: time });

describe('conditions', () => {
  it('keeps the transition time when only the reason changes', () => {
    const [ready] = mergeConditions([at('t0')], [{ type: 'Ready', status: 'True', reason: 'Other', message: 'x' }], 't1');
    expect(ready).toEqual({ type: 'Ready', status: 'True', reason: 'Other', message: 'x', lastTransitionTime: 't0' });
  });

  it('moves the transition time when the status changes', () => {
    const [ready] = mergeConditions([at('t0')], [{ type: 'Ready', status: 'False', reason: 'R', message: 'm' }], 't1');
    expect(ready.lastTransitionTime).toBe('t1');
  });

  it('keeps conditions it does not compute, after the computed ones', () => {
    const foreign: Condition = { type: 'ImageDeployed', status: 'True', reason: 'D', message: '', lastTransitionTime: 't0' };
    expect(mergeConditions([foreign], [{ type: 'Ready', status: 'True', reason: 'R', message: 'm' }], 't1').map((c) => c.type)).toEqual(['Ready', 'ImageDeployed']);
  });

  it.each<[string, unknown, unknown, boolean]>([
    ['statuses differing only in transition times are the same', { conditions: [at('t0')] }, { conditions: [at('t1')] }, true],
    ['an undefined field is the same as a missing one', { phase: 'Running', lastError: undefined }, { phase: 'Running' }, true],
    ['a different condition status is a change', { conditions: [at('t0')] }, { conditions: [at('t0', 'False')] }, false],
    ['a different phase is a change', { phase: 'Running' }, { phase: 'Stopped' }, false],
    ['no status and an empty status are the same', undefined, {}, true],
  ])('%s', (_label, a, b, same) => {
    expect(sameStatus(a, b)).toBe(same);
  });
});
