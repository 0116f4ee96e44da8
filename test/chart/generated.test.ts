/**
 * deploy/ and the chart carry copies of what src/api defines (CRDs, the kinds RBAC covers, one
 * Argo CD health check per kind). When a kind changes, these fail until `npx tsx test/chart/sync.ts`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { CHART_DIR, DEPLOY_DIR, KINDS, REPO, chartCrds, generatedFiles, healthScriptPath, staleCrdCopies } from './sources.js';

describe('files derived from src/api', () => {
  it.each([...generatedFiles()].map(([path, text]) => [relative(REPO, path), text]))(
    '%s is up to date (run `npx tsx test/chart/sync.ts` when this fails)',
    (path, text) => {
      expect(readFileSync(join(REPO, path), 'utf8')).toBe(text);
    },
  );

  it('leaves no CRD copy of a kind that no longer exists', () => {
    expect(staleCrdCopies()).toEqual([]);
  });

  it('ships the CRD of every kind in the chart and in deploy/, identical to crds/', () => {
    for (const file of chartCrds().keys()) {
      const source = readFileSync(join(REPO, 'crds', file), 'utf8');
      expect(readFileSync(join(CHART_DIR, 'crds', file), 'utf8')).toBe(source);
      expect(readFileSync(join(DEPLOY_DIR, 'crds', file), 'utf8')).toBe(source);
    }
  });

  it('has an Argo CD health check for every kind in src/api/kinds.ts', () => {
    const missing = Object.keys(KINDS).filter((kind) => !existsSync(healthScriptPath(kind)));
    expect(missing).toEqual([]);
  });
});
