import { readFileSync } from 'node:fs';
import { parseAllDocuments, stringify } from 'yaml';
import { resolveKind, validateResource, type Resource } from '../api/index.js';
import { InvalidSpecError } from '../errors.js';
import { evalJsonPath } from './json-path.js';

interface ServerOpts {
  server: string;
  /** file holding the admin token, sent as X-Admin-Token (the server's own --admin-token-file) */
  adminTokenFile?: string;
  /** an auth token from POST /token, sent as X-Auth-Token */
  token?: string;
}

/** The credentials the admin API asks for when the server runs with --auth token. */
function authHeaders(opts: ServerOpts): Record<string, string> {
  const headers: Record<string, string> = {};
  if (opts.adminTokenFile) headers['x-admin-token'] = readFileSync(opts.adminTokenFile, 'utf8').trim();
  if (opts.token) headers['x-auth-token'] = opts.token;
  return headers;
}

async function request(opts: ServerOpts, method: string, path: string, body?: unknown): Promise<unknown> {
  const server = opts.server;
  const headers = { ...authHeaders(opts), ...(body ? { 'content-type': 'application/json' } : {}) };
  let res: Response;
  try {
    res = await fetch(new URL(path, server), { method, headers, body: body ? JSON.stringify(body) : undefined });
  } catch (err) {
    throw new Error(`cannot reach ${server} (is \`npm start\` running?)`, { cause: err });
  }
  const payload = (await res.json()) as { message?: string; issues?: { path: string; message: string }[] };
  if (!res.ok) {
    const issues = payload.issues?.map((i) => `\n  ${i.path}: ${i.message}`).join('') ?? '';
    throw new Error(`${res.status}: ${payload.message ?? 'request failed'}${issues}`);
  }
  return payload;
}

function readManifests(file: string): Resource[] {
  const text = readFileSync(file === '-' ? 0 : file, 'utf8');
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length) throw new Error(`${file}: ${doc.errors[0].message}`);
      return doc.toJS() as Resource | null;
    })
    .filter((d): d is Resource => d !== null);
}

/** Validates every document before sending any, so a bad file changes nothing. */
export async function apply(opts: ServerOpts & { filename: string }): Promise<void> {
  const docs = readManifests(opts.filename);
  docs.forEach((doc, i) => {
    try {
      validateResource(doc);
    } catch (err) {
      if (!(err instanceof InvalidSpecError)) throw err;
      const where = `${opts.filename} document ${i + 1} (${doc?.kind ?? '?'} ${doc?.metadata?.name ?? '?'})`;
      throw new Error(`${where} is invalid:${err.issues.map((x) => `\n  ${x.path}: ${x.message}`).join('')}`, { cause: err });
    }
  });
  for (const doc of docs) {
    const res = (await request(opts, 'POST', '/apply', doc)) as { action: string };
    console.log(`${resolveKind(doc.kind)?.singular}.zvm.dev/${doc.metadata.name} ${res.action}`);
  }
}

type GetOpts = ServerOpts & { namespace?: string; output: string; watch?: boolean; watchIntervalMs?: number };

export async function get(kind: string, name: string | undefined, opts: GetOpts): Promise<void> {
  const def = resolveKind(kind);
  if (!def) throw new Error(`unknown kind ${kind}`);
  const ns = opts.namespace ? `?namespace=${encodeURIComponent(opts.namespace)}` : '';
  const path = name ? `/resources/${def.plural}/${encodeURIComponent(name)}${ns}` : `/resources/${def.plural}${ns}`;
  const fetchItems = async () => {
    const result = await request(opts, 'GET', path);
    return (name ? [result] : result) as Resource[];
  };
  const items = await fetchItems();
  if (opts.output === 'json') return void console.log(JSON.stringify(name ? items[0] : items, null, 2));
  if (opts.output === 'yaml') return void console.log(stringify(name ? items[0] : items));
  const columns = [{ name: 'NAME', jsonPath: '.metadata.name' }, ...def.printerColumns.filter((c) => c.name !== 'Age')];
  if (def.scope === 'Namespaced' && !opts.namespace) columns.unshift({ name: 'NAMESPACE', jsonPath: '.metadata.namespace' });
  const rowsOf = (list: Resource[]) => list.map((item) => columns.map((c) => String(evalJsonPath(item, c.jsonPath) ?? '')));
  const rows = rowsOf(items);
  const header = columns.map((c) => c.name.toUpperCase());
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const print = (row: string[]) => console.log(row.map((cell, i) => cell.padEnd(widths[i])).join('   ').trimEnd());
  for (const row of [header, ...rows]) print(row);
  if (opts.watch) await watchRows(fetchItems, rowsOf, print, opts.watchIntervalMs ?? 2000);
}

/**
 * `get -w`: like kubectl, a new line whenever a row changes (e.g. the PROGRESS of an import), by
 * polling the admin API; runs until interrupted.
 */
async function watchRows(fetchItems: () => Promise<Resource[]>, rowsOf: (l: Resource[]) => string[][], print: (r: string[]) => void, intervalMs: number): Promise<void> {
  const shown = new Map<string, string>();
  const remember = (rows: string[][]) => rows.forEach((r) => shown.set(r.slice(0, 2).join('/'), r.join('\u0000')));
  remember(rowsOf(await fetchItems()));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
    for (const row of rowsOf(await fetchItems())) {
      const key = row.slice(0, 2).join('/');
      if (shown.get(key) === row.join('\u0000')) continue;
      shown.set(key, row.join('\u0000'));
      print(row);
    }
  }
}

export async function remove(kind: string, name: string, opts: ServerOpts & { namespace?: string }): Promise<void> {
  const def = resolveKind(kind);
  if (!def) throw new Error(`unknown kind ${kind}`);
  const ns = opts.namespace ? `?namespace=${encodeURIComponent(opts.namespace)}` : '';
  await request(opts, 'DELETE', `/resources/${def.plural}/${encodeURIComponent(name)}${ns}`);
  console.log(`${def.singular}.zvm.dev "${name}" deleted`);
}
