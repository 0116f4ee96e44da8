/**
 * Finds what test/capi/toolchain.sh built: Cluster API's managers and clusterctl (bin/) and the CRDs and
 * kustomize config copied out of its module (config/). Never builds (a first build takes many minutes).
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZvmError } from '../../src/errors.js';
import { toolchainBinDir } from '../toolchain-common.js';

export const CAPI_TOOLCHAIN_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'toolchain.sh');

export interface CapiToolchain {
  binDir: string;
  /** config/core/crd/bases, config/bootstrap/kubeadm/crd/bases, ... */
  configDir: string;
  clusterctl: string;
}

export async function resolveCapiToolchain(): Promise<CapiToolchain> {
  const binDir = await toolchainBinDir(CAPI_TOOLCHAIN_SCRIPT).catch((err: Error) => {
    throw new ZvmError('UNAVAILABLE', `Cluster API test toolchain is missing (${err.message}). Build it once with: test/capi/toolchain.sh (cached in ~/.cache/zvm-operator/capi, or set ZVM_CAPI_CACHE).`);
  });
  return { binDir, configDir: join(binDir, '..', 'config'), clusterctl: join(binDir, 'clusterctl') };
}
