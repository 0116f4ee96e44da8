/** --operation-timeout and --max-concurrent-deploy-capture as REST config; a bad value stops the start. */
import { restOperationConfig } from '../../../src/cmd/rest-operation.js';

describe('restOperationConfig', () => {
  it('reads Go durations and a whole number of deploys', () => {
    expect(restOperationConfig({ operationTimeout: '1800s', maxConcurrentDeployCapture: '20' })).toEqual({ operationTimeoutMs: 1_800_000, maxConcurrentDeployCapture: 20 });
    expect(restOperationConfig({ operationTimeout: '1m30s' })).toEqual({ operationTimeoutMs: 90_000 });
    expect(restOperationConfig({})).toEqual({});
  });

  it.each([
    [{ operationTimeout: '0s' }, /--operation-timeout 0s must be longer than 0/],
    [{ operationTimeout: 'soon' }, /bad duration "soon"/],
    [{ maxConcurrentDeployCapture: '0' }, /--max-concurrent-deploy-capture 0 must be a whole number of at least 1/],
    [{ maxConcurrentDeployCapture: '2.5' }, /must be a whole number/],
  ])('refuses %j', (opts, message) => {
    expect(() => restOperationConfig(opts)).toThrow(message);
  });
});
