/**
 * The embedded store's file: the whole state (objects + resourceVersion counter) as one JSON document,
 * replaced atomically through src/durable (temp file, fsync, rename, fsync of the directory), so the
 * file on disk is always either the previous or the next complete state — never a torn mix.
 */
import type { Resource } from '../../api/index.js';
import { damagedStateError, loadJsonState, writeFileDurably } from '../../durable/index.js';
import type { Logger } from '../../log.js';
import { isJsonObject } from '../common/json.js';

export interface StateSnapshot {
  resourceVersion: number;
  objects: Resource[];
}

const FORMAT_VERSION = 1;

/** Reads the state at start-up; undefined when there is none yet. A damaged file stops the start, naming the file and the way out. */
export function loadStateFile(path: string, log: Logger): StateSnapshot | undefined {
  const doc = loadJsonState(path, log);
  if (doc === undefined) return undefined;
  if (!isJsonObject(doc) || doc.version !== FORMAT_VERSION || typeof doc.resourceVersion !== 'number' || !Array.isArray(doc.objects)) {
    throw damagedStateError(path, 'has an unknown layout (not a state file of this version)');
  }
  return { resourceVersion: doc.resourceVersion, objects: doc.objects as Resource[] };
}

/** Stored objects are never mutated, so each one's JSON is computed once, however often the file is rewritten. */
const jsonCache = new WeakMap<Resource, string>();

export function serializeState(resourceVersion: number, objects: Iterable<Resource>): string {
  const parts: string[] = [];
  for (const obj of objects) {
    let json = jsonCache.get(obj);
    if (json === undefined) {
      json = JSON.stringify(obj);
      jsonCache.set(obj, json);
    }
    parts.push(json);
  }
  return `{"version":${FORMAT_VERSION},"resourceVersion":${resourceVersion},"objects":[\n${parts.join(',\n')}\n]}\n`;
}

export async function writeStateFile(path: string, data: string, log: Logger): Promise<void> {
  await writeFileDurably(path, data, log);
}
