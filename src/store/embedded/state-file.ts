/**
 * The embedded store's file: the whole state (objects + resourceVersion counter) as one JSON document,
 * replaced atomically (temp file in the same directory, fsync, rename, fsync of the directory), so the
 * file on disk is always either the previous or the next complete state — never a torn mix.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Resource } from '../../api/index.js';
import { ZvmError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { isJsonObject } from './json.js';

export interface StateSnapshot {
  resourceVersion: number;
  objects: Resource[];
}

const FORMAT_VERSION = 1;

function tempPrefix(path: string): string {
  return `${basename(path)}.tmp-`;
}

/** Temp files are never read back: one left by a crash is an unfinished write, not a state. */
function removeLeftovers(path: string, log: Logger): void {
  const dir = dirname(path);
  for (const entry of readdirSync(dir)) {
    if (!entry.startsWith(tempPrefix(path))) continue;
    rmSync(join(dir, entry), { force: true });
    log.warn({ file: entry }, 'removed an unfinished state file left by an earlier run');
  }
}

/** Reads the state at start-up; undefined when there is none yet. A damaged file stops the start. */
export function loadStateFile(path: string, log: Logger): StateSnapshot | undefined {
  mkdirSync(dirname(path), { recursive: true });
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new ZvmError('UNAVAILABLE', `cannot read state file ${path}`, { cause: err });
    removeLeftovers(path, log);
    return undefined;
  }
  removeLeftovers(path, log);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new ZvmError('INTERNAL', `state file ${path} is not valid JSON; refusing to start over it`, { cause: err });
  }
  if (!isJsonObject(doc) || doc.version !== FORMAT_VERSION || typeof doc.resourceVersion !== 'number' || !Array.isArray(doc.objects)) {
    throw new ZvmError('INTERNAL', `state file ${path} has an unknown layout; refusing to start over it`);
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

async function syncDirectory(dir: string, log: Logger): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (err) {
    // Some file systems refuse fsync on a directory; the rename itself has still happened.
    log.debug({ err, dir }, 'directory fsync not supported');
  }
}

export async function writeStateFile(path: string, data: string, log: Logger): Promise<void> {
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    const handle = await open(temp, 'w');
    try {
      await handle.writeFile(data, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDirectory(dirname(path), log);
}
