/**
 * GitOps-ready manifests: one YAML file per resource under <out>/<plural>/, with the status the
 * migration writes beside the spec (the API server ignores status on create; `--apply` writes it
 * through the status subresource), plus summary.txt and summary.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { resolveKind } from '../api/index.js';
import type { MigrationItem } from './model.js';

export function fileNameOf(item: MigrationItem): string {
  const r = item.resource;
  const plural = resolveKind(r.kind)?.plural ?? r.kind.toLowerCase();
  return join(plural, `${r.metadata.namespace ? `${r.metadata.namespace}.` : ''}${r.metadata.name}.yaml`);
}

export function writeManifests(outDir: string, items: readonly MigrationItem[], summary: { text: string; json: unknown }): string[] {
  const written: string[] = [];
  for (const item of items) {
    const file = join(outDir, fileNameOf(item));
    mkdirSync(join(file, '..'), { recursive: true });
    const doc = { ...item.resource, ...(item.status ? { status: item.status } : {}) };
    writeFileSync(file, `# migrated from feilong: ${item.source}\n${stringify(doc)}`);
    written.push(file);
  }
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'summary.txt'), summary.text);
  writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary.json, null, 2)}\n`);
  return written;
}
