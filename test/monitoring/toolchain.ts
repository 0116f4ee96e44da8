/**
 * Finds promtool, built once by test/monitoring/toolchain.sh (the harness never builds it: a first
 * build takes many minutes); a missing binary is an error telling how to build it.
 */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ZvmError } from '../../src/errors.js';

const run = promisify(execFile);
const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), 'toolchain.sh');

export async function resolvePromtool(): Promise<string> {
  let path: string;
  try {
    path = join((await run('bash', [SCRIPT, '--check'], { timeout: 30_000 }).then(() => run('bash', [SCRIPT, '--print-bin-dir'], { timeout: 30_000 }))).stdout.trim(), 'promtool');
    await access(path, constants.X_OK);
  } catch (err) {
    const detail = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new ZvmError('UNAVAILABLE', `promtool is missing (${detail}). Build it once with: test/monitoring/toolchain.sh (cached in ~/.cache/zvm-operator/promtool).`);
  }
  return path;
}
