import { InvalidInputError } from '../errors.js';
import type { RestConfigInput } from '../rest/config.js';
import { parseDuration } from './duration.js';

export interface RestOperationOptions {
  /** --operation-timeout: how long a REST call waits for its operation (a duration, e.g. 1800s) */
  operationTimeout?: string;
  /** --max-concurrent-deploy-capture */
  maxConcurrentDeployCapture?: string | number;
}

/** The REST operation flags of `rest` and `standalone` as REST config; a bad value stops the start. */
export function restOperationConfig(opts: RestOperationOptions): RestConfigInput {
  const config: RestConfigInput = {};
  if (opts.operationTimeout !== undefined) {
    config.operationTimeoutMs = parseDuration(opts.operationTimeout);
    if (!(config.operationTimeoutMs > 0)) throw new InvalidInputError(`--operation-timeout ${opts.operationTimeout} must be longer than 0`);
  }
  if (opts.maxConcurrentDeployCapture !== undefined) {
    const n = Number(opts.maxConcurrentDeployCapture);
    if (!Number.isInteger(n) || n < 1) throw new InvalidInputError(`--max-concurrent-deploy-capture ${opts.maxConcurrentDeployCapture} must be a whole number of at least 1`);
    config.maxConcurrentDeployCapture = n;
  }
  return config;
}
