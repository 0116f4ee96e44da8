/**
 * Finds the binaries built by test/kube/toolchain.sh. The harness never builds them itself (a
 * first build takes many minutes): a missing toolchain is an error telling how to build it.
 */
import { access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ZvmError } from '../../src/errors.js';
import { toolchainBinDir } from '../toolchain-common.js';

export const TOOLCHAIN_SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'toolchain.sh');
export const KUBE_BINARIES = ['kube-apiserver', 'etcd', 'helm'] as const;

function missing(detail: string): ZvmError {
  return new ZvmError(
    'UNAVAILABLE',
    `Kubernetes test toolchain is missing (${detail}). \`npm test\` builds it first; alone: test/kube/toolchain.sh ` +
      '(about 10-20 min on 2 cores; cached in ~/.cache/zvm-operator/kube, or set ZVM_KUBE_CACHE / ZVM_KUBE_BIN_DIR).',
  );
}

/** The bin dir: `explicit`, else $ZVM_KUBE_BIN_DIR, else what `toolchain.sh --check` reports as complete. */
export async function resolveKubeBinDir(explicit?: string): Promise<string> {
  let binDir = explicit ?? process.env.ZVM_KUBE_BIN_DIR;
  if (!binDir) {
    binDir = await toolchainBinDir(TOOLCHAIN_SCRIPT).catch((err: Error) => {
      throw missing(err.message);
    });
  }
  for (const name of KUBE_BINARIES) {
    try {
      await access(join(binDir, name), constants.X_OK);
    } catch {
      throw missing(`${join(binDir, name)} is not an executable file`);
    }
  }
  return binDir;
}
