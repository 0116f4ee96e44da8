import { HypervisorError } from '../../../../src/errors.js';
import { describeRcRs, describeSmapiResult, isRetryable, raiseFor } from '../../../../src/hypervisor/smapi/messages.js';

describe('SMAPI messages', () => {
  it.each([
    [200, 8, undefined, 'image operation failed: image already active'],
    [400, 4, undefined, 'image definition error: directory entry not found'],
    [0, 12, 'Image_Status_Query', 'request successful: image not active'],
    [4, 4, 'Response_Recovery', 'request completed with a warning: no stored reply for that request id'],
    [212, 999, undefined, 'connectivity error'],
    [777, 1, undefined, 'unknown return code 777'],
  ])('describes rc %i rs %i', (rc, rs, fn, text) => {
    expect(describeRcRs(rc, rs, fn)).toBe(text);
  });

  it('names function, target and codes in the full message', () => {
    expect(describeSmapiResult('Image_Activate', 'LINUX01', 200, 8)).toBe(
      'Image_Activate LINUX01: rc 200 rs 8 (image operation failed: image already active)');
  });

  it('treats busy, reissue, directory-manager outages and transport failures as retryable', () => {
    expect([isRetryable(900, 99), isRetryable(900, 8), isRetryable(500, 8), isRetryable(-103, 0)]).toEqual([true, true, true, true]);
    expect([isRetryable(400, 4), isRetryable(120, 0), isRetryable(900, 12)]).toEqual([false, false, false]);
  });

  it('raiseFor throws a typed error for a non-zero rc and passes rc 0 through', () => {
    const ok = { rc: 0, rs: 12, output: {} };
    expect(raiseFor('Image_Status_Query', ok)).toBe(ok);
    try {
      raiseFor('Image_Create_DM', { rc: 400, rs: 8, output: {} }, 'LINUX01');
      throw new Error('not thrown');
    } catch (err) {
      expect(err).toBeInstanceOf(HypervisorError);
      expect(err).toMatchObject({ fn: 'Image_Create_DM', rc: 400, rs: 8, retryable: false });
      expect((err as Error).message).toContain('directory entry already exists');
    }
  });
});
