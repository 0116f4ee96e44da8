/**
 * What `npm pack` puts in the package (package.json `files`): the compiled program, the chart, the
 * manifests and the user guide; never the tests, the sources or whatever lies in the working directory.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));

function packed(): string[] {
  const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return (JSON.parse(out) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
}

describe('the npm package', () => {
  const stray = join(REPO, 'stray-notes.txt');
  afterAll(() => rmSync(stray, { force: true }));

  it('holds the program, chart, manifests and user guide, and nothing of test/, src/ or the working directory', () => {
    writeFileSync(stray, 'not for the package\n');
    const files = packed();
    expect(files).toEqual(expect.arrayContaining(['dist/cmd/main.js', 'dist/cmd/kubectl-zvm/program.js', 'package.json', 'README.md', 'helm/zvm-operator/Chart.yaml', 'docs/user-guide/README.md']));
    expect(files.filter((f) => /^(test|src|bench|\.zvm-state|node_modules)\//.test(f) || f === 'stray-notes.txt')).toEqual([]);
  }, 60_000);
});
