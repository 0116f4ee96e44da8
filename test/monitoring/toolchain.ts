/**
 * Finds promtool, built once by test/monitoring/toolchain.sh (the harness never builds it: a first
 * build takes many minutes); a missing binary is an error telling how to build it.
 */
import { access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZvmError } from '../../src/errors.js';
import { toolchainBinDir } from '../toolchain-common.js';

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'toolchain.sh');

export async function resolvePromtool(): Promise<string> {
  let path: string;
  try {
    path = join(await toolchainBinDir(SCRIPT), 'promtool');
    await access(path, constants.X_OK);
  } catch (err) {
    throw new ZvmError('UNAVAILABLE', `promtool is missing (${(err as Error).message}). \`npm test\` builds it first; alone: test/monitoring/toolchain.sh (cached in ~/.cache/zvm-operator/promtool).`);
  }
  return path;
}
