/** `npm run generate` (second half): rewrites clusterctl/infrastructure-zvm/<version>/ from src/api and src/capi. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderClusterctlRepository, repositoryDir } from './render.js';

const dir = process.argv[2] ?? repositoryDir();
mkdirSync(dir, { recursive: true });
for (const [file, text] of renderClusterctlRepository()) {
  writeFileSync(join(dir, file), text);
  console.log(`wrote ${join(dir, file)}`);
}
