/** `npm run docs:metrics`: rewrites docs/metrics.md from the registered metrics (never edit it by hand). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { renderMetricsDoc } from './render-metrics-doc.js';

const file = process.argv[2] ?? 'docs/metrics.md';
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, renderMetricsDoc());
console.log(`wrote ${file}`);
