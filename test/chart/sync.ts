/**
 * `npx tsx test/chart/sync.ts`: rewrites what deploy/ and the chart derive from src/api (run after
 * `npm run generate` when a kind is added or changed). test/chart/generated.test.ts fails until then.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { REPO, generatedFiles, staleCrdCopies } from './sources.js';

for (const path of staleCrdCopies()) {
  rmSync(path);
  console.log(`removed ${relative(REPO, path)}`);
}
for (const [path, text] of generatedFiles()) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  console.log(`wrote ${relative(REPO, path)}`);
}
