/** `npm run generate`: rewrites crds/ from src/api (never edit crds/ by hand). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrds } from './render-crds.js';

const dir = process.argv[2] ?? 'crds';
mkdirSync(dir, { recursive: true });
for (const [file, text] of renderCrds()) {
  writeFileSync(join(dir, file), text);
  console.log(`wrote ${join(dir, file)}`);
}
