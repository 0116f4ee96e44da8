/**
 * The repository stands alone: no code, test, bench or CI script reads a folder beside the clone.
 * Fixtures live in test/fixtures/ (see test/fixtures/paths.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));
const self = fileURLToPath(import.meta.url);
/** written in two parts so that this file does not match itself */
const outside = [['..', 'shared'].join('/'), ['/work', 'shared'].join('/')];

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(path);
    return e.isFile() && path !== self ? [path] : [];
  });
}

describe('a clone needs nothing outside itself', () => {
  const scanned = ['src', 'test', 'bench', '.ci'].flatMap((d) => files(join(root, d)));

  it('scans the source, test, bench and CI trees', () => {
    expect(scanned.length).toBeGreaterThan(100);
    expect(scanned.some((f) => f.endsWith(join('test', 'fixtures', 'paths.ts')))).toBe(true);
  });

  it('no file names a path outside the repository', () => {
    const hits = scanned.flatMap((f) => {
      const text = readFileSync(f, 'latin1');
      return outside.filter((p) => text.includes(p)).map((p) => `${relative(root, f)}: ${p}`);
    });
    expect(hits).toEqual([]);
  });
});
