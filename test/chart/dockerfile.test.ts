/**
 * The Dockerfile cannot be built here (no container engine), so its parts are checked one by one:
 * the stages and the non-root runtime user, the build context, and the build itself, reproduced
 * in the image's layout (/app: package.json, node_modules, dist) and started with the ENTRYPOINT.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exec } from './render.js';
import { REPO } from './sources.js';

const dockerfile = readFileSync(join(REPO, 'Dockerfile'), 'utf8');
const ignored = readFileSync(join(REPO, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));

interface Stage {
  from: string;
  lines: string[];
}

function stages(): Stage[] {
  const out: Stage[] = [];
  for (const line of dockerfile.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) {
    if (line.startsWith('FROM ')) out.push({ from: line.slice(5), lines: [] });
    else out[out.length - 1]?.lines.push(line);
  }
  return out;
}

describe('Dockerfile', () => {
  it('builds in a node stage and runs from a separate node:22-slim stage as a numeric non-root user', () => {
    const [build, runtime, ...rest] = stages();
    expect(rest).toEqual([]);
    expect(build?.from).toBe('node:22-slim AS build');
    expect(build?.lines).toContain('RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund'); // npm ci builds (prepare)
    expect(runtime?.from).toBe('node:22-slim');
    const user = runtime?.lines.find((l) => l.startsWith('USER '))?.split(' ')[1] ?? '';
    expect(user).toMatch(/^[1-9][0-9]*:[1-9][0-9]*$/);
    expect(runtime?.lines).toContain('ENTRYPOINT ["node", "dist/cmd/main.js"]');
    expect(runtime?.lines.some((l) => l.startsWith('RUN '))).toBe(false); // nothing runs as root in the final image
  });

  it('copies only files that exist and that .dockerignore lets into the context', () => {
    const sources = stages()[0]?.lines.filter((l) => l.startsWith('COPY ')).flatMap((l) => l.split(/\s+/).slice(1, -1)) ?? [];
    expect(sources).toEqual(['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'src']);
    for (const s of sources) {
      expect(existsSync(join(REPO, s))).toBe(true);
      expect(ignored).not.toContain(s);
    }
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
  });

  it('yields, with the build npm ci runs, a dist/cmd/main.js that starts and offers controller and rest', async () => {
    const app = mkdtempSync(join(tmpdir(), 'zvm-image-'));
    try {
      copyFileSync(join(REPO, 'package.json'), join(app, 'package.json'));
      symlinkSync(join(REPO, 'node_modules'), join(app, 'node_modules'), 'dir');
      const tsc = await exec(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', join(REPO, 'tsconfig.build.json'), '--outDir', join(app, 'dist')], 180_000);
      expect(tsc).toMatchObject({ code: 0 });
      const help = await exec(process.execPath, [join(app, 'dist/cmd/main.js'), '--help']);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(/^\s+controller \[options\]/m);
      expect(help.stdout).toMatch(/^\s+rest \[options\]/m);
    } finally {
      rmSync(app, { recursive: true, force: true });
    }
  }, 240_000);
});
