/** `npm run generate`: rewrites crds/ and docs/fields.md from src/api (never edit them by hand). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderCrds } from './render-crds.js';
import { renderFieldsDoc } from './render-fields-doc.js';

const dir = process.argv[2] ?? 'crds';
mkdirSync(dir, { recursive: true });
for (const [file, text] of renderCrds()) {
  writeFileSync(join(dir, file), text);
  console.log(`wrote ${join(dir, file)}`);
}

// the field table sits beside the CRDs it matches (only when writing the repository's own crds/)
if (!process.argv[2]) {
  writeFileSync(join('docs', 'fields.md'), renderFieldsDoc());
  console.log('wrote docs/fields.md');
}
