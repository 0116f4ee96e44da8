/**
 * The TypeScript side of toolchain-common.sh: where a toolchain script's binaries are, read the way
 * the harnesses read it (never building: a first build takes many minutes).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** `script --check`, then `script --print-bin-dir`; rejects with what the script said when the toolchain is not built. */
export async function toolchainBinDir(script: string): Promise<string> {
  try {
    await run('bash', [script, '--check'], { timeout: 30_000 });
    return (await run('bash', [script, '--print-bin-dir'], { timeout: 30_000 })).stdout.trim();
  } catch (err) {
    throw new Error((err as { stderr?: string }).stderr?.trim() || (err as Error).message, { cause: err });
  }
}
