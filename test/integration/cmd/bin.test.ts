/**
 * What `npm ci` leaves for `npx zvm-operator`: package.json's bin entry is the compiled main, built
 * by the prepare script, executable on its own (shebang, mode), and it answers --version.
 */
import { execFile } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MAIN_JS, NODE_FLAGS } from '../../../src/cmd/self-command.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string>; scripts: Record<string, string> };

describe('the zvm-operator bin', () => {
  it('is the compiled main that the build (run by npm ci) produces, and that the tests start', () => {
    expect(join(REPO, pkg.bin['zvm-operator']!)).toBe(MAIN_JS);
    expect(pkg.scripts.prepare).toContain('npm run build');
    // the compiled main on the project's Node (scripts/node.sh: the node on PATH when it is that major, else the cached one)
    expect(pkg.scripts.start).toBe(`PATH="$(bash scripts/node.sh):$PATH" node ${NODE_FLAGS.join(' ')} dist/cmd/main.js standalone`);
  });

  it('runs by itself: a node shebang and the executable bit', async () => {
    expect(readFileSync(MAIN_JS, 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(() => accessSync(MAIN_JS, constants.X_OK)).not.toThrow();
    const { stdout } = await promisify(execFile)(MAIN_JS, ['--version'], { env: { ...process.env, PATH: `${join(process.execPath, '..')}:${process.env.PATH ?? ''}` } });
    expect(stdout.trim()).toBe(pkg.version);
  });
});
