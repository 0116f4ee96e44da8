import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { groupOf, validateResource, type NamedResource, type Resource } from '../api/index.js';
import { InvalidInputError, InvalidSpecError } from '../errors.js';
import type { RecordedEvent } from '../runtime/memory-event-recorder.js';
import { formatRows, columnWidths, parseOutput, render, resourceName, tableCells } from './client-output.js';
import { describe as describeText } from './describe.js';
import { parseDuration } from './duration.js';
import { kindOrSuggest, resourceOrSuggest } from './kind-names.js';
import { parseSelector } from './label-selector.js';

export interface ServerOpts {
  server: string;
  /** file holding the admin token, sent as X-Admin-Token (the server's own --admin-token-file) */
  adminTokenFile?: string;
  /** an auth token from POST /token, sent as X-Auth-Token */
  token?: string;
  /** give up on a request after this long (a Go duration; 0: wait as long as it takes) */
  requestTimeout?: string;
}

/** The credentials the admin API asks for when the server runs with --auth token. */
function authHeaders(opts: ServerOpts): Record<string, string> {
  const headers: Record<string, string> = {};
  if (opts.adminTokenFile) headers['x-admin-token'] = readFileSync(opts.adminTokenFile, 'utf8').trim();
  if (opts.token) headers['x-auth-token'] = opts.token;
  return headers;
}

export async function request(opts: ServerOpts, method: string, path: string, body?: unknown): Promise<unknown> {
  const server = opts.server;
  const headers = { ...authHeaders(opts), ...(body ? { 'content-type': 'application/json' } : {}) };
  const timeoutMs = opts.requestTimeout ? parseDuration(opts.requestTimeout) : 0;
  let res: Response;
  try {
    res = await fetch(new URL(path, server), { method, headers, body: body ? JSON.stringify(body) : undefined, ...(timeoutMs ? { signal: AbortSignal.timeout(timeoutMs) } : {}) });
  } catch (err) {
    if ((err as Error).name === 'TimeoutError') throw new Error(`${server} did not answer within ${opts.requestTimeout}`, { cause: err });
    throw new Error(`cannot reach ${server} (is \`npm start\` running?)`, { cause: err });
  }
  printWarnings(res.headers.get('warning'));
  const payload = (await res.json()) as { message?: string; issues?: { path: string; message: string }[] };
  if (!res.ok) {
    const issues = payload.issues?.map((i) => `\n  ${i.path}: ${i.message}`).join('') ?? '';
    throw new Error(`${res.status}: ${payload.message ?? 'request failed'}${issues}`);
  }
  return payload;
}

const warned = new Set<string>();

/**
 * The texts of a `Warning: 299 - "…"` header (what the apiserver and standalone send for a deprecated
 * version) on stderr as kubectl prints them, each once per command.
 */
function printWarnings(header: string | null): void {
  for (const [, quoted] of header?.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g) ?? []) {
    const text = quoted!.replace(/\\(.)/g, '$1');
    if (warned.has(text)) continue;
    warned.add(text);
    process.stderr.write(`Warning: ${text}\n`);
  }
}

/** The documents of a file, of stdin (`-`), or of every .yaml/.yml/.json file of a directory (as kubectl apply -f DIR). */
export function readManifests(file: string): Resource[] {
  if (file === '-') return parseManifests(readFileSync(0, 'utf8'), 'stdin');
  let stats;
  try {
    stats = statSync(file);
  } catch {
    throw new InvalidInputError(`the path "${file}" does not exist`);
  }
  if (!stats.isDirectory()) return parseManifests(readFileSync(file, 'utf8'), file);
  const files = readdirSync(file).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  if (files.length === 0) throw new InvalidInputError(`the directory "${file}" holds no .yaml, .yml or .json files`);
  return files.flatMap((f) => parseManifests(readFileSync(join(file, f), 'utf8'), join(file, f)));
}

function parseManifests(text: string, file: string): Resource[] {
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
  validateAll(docs, opts.filename);
  for (const doc of docs) {
    const res = (await request(opts, 'POST', '/apply', doc)) as { action: string };
    console.log(`${resourceName(kindOf(doc.kind), doc.metadata.name)} ${res.action}`);
  }
}

/** Every document valid, or an error naming the first bad one and its issues. */
export function validateAll(docs: Resource[], filename: string): void {
  docs.forEach((doc, i) => {
    try {
      validateResource(doc);
    } catch (err) {
      if (!(err instanceof InvalidSpecError)) throw err;
      const where = `${filename} document ${i + 1} (${doc?.kind ?? '?'} ${doc?.metadata?.name ?? '?'})`;
      throw new Error(`${where} is invalid:${err.issues.map((x) => `\n  ${x.path}: ${x.message}${gotAt(doc, x.path)}`).join('')}`, { cause: err });
    }
  });
}

/** ` (got "v1")`: the value the manifest has at a schema path, when it is a plain value. */
function gotAt(doc: unknown, path: string): string {
  let v: unknown = doc;
  for (const key of path.split('/').slice(1)) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return v === undefined || (typeof v === 'object' && v !== null) ? '' : ` (got ${JSON.stringify(v)})`;
}

type GetOpts = ServerOpts & { namespace?: string; allNamespaces?: boolean; selector?: string; output: string; watch?: boolean; watchIntervalMs?: number };

const kindOf = kindOrSuggest;

/** The admin API's path; a version the command line named (`zguests.v1alpha1.zvm.dev`) goes along, as kubectl sends it. */
function resourcePath({ def, version }: NamedResource, name: string | undefined, namespace: string | undefined, sub = ''): string {
  const ns = namespace ? `?namespace=${encodeURIComponent(namespace)}` : '';
  const resource = version ? `${def.plural}.${version}.${groupOf(def)}` : def.plural;
  return `/resources/${resource}${name ? `/${encodeURIComponent(name)}${sub}` : ''}${ns}`;
}

export async function get(kind: string, name: string | undefined, opts: GetOpts): Promise<void> {
  const named = resourceOrSuggest(kind);
  const { def } = named;
  const output = parseOutput(opts.output); // an unknown format fails before any request
  const table = output.format === 'table' || output.format === 'wide';
  if (opts.watch && !table) throw new InvalidInputError('-w prints rows: use it with -o table or -o wide');
  // standalone lists every namespace unless -n names one (-A says so explicitly)
  const namespace = opts.allNamespaces ? undefined : opts.namespace;
  const selected = opts.selector ? parseSelector(opts.selector) : () => true;
  const fetchItems = async () => {
    const result = await request(opts, 'GET', resourcePath(named, name, namespace));
    return ((name ? [result] : result) as Resource[]).filter((r) => selected(r.metadata.labels ?? {}));
  };
  const shape = { namespaceColumn: def.scope === 'Namespaced' && !namespace, single: Boolean(name) };
  const items = await fetchItems();
  if (table && !name && items.length === 0 && !opts.watch) {
    // kubectl's words, on stderr: stdout stays empty for scripts
    return void process.stderr.write(`No resources found${namespace && def.scope === 'Namespaced' ? ` in ${namespace} namespace` : ''}.\n`);
  }
  if (!table || !opts.watch) return void process.stdout.write(render(output, def, items, shape));
  const cells = (list: Resource[]) => tableCells(def, list, { ...shape, wide: output.format === 'wide' });
  const { header, rows } = cells(items);
  const widths = columnWidths([header, ...rows]);
  const print = (row: string[]) => console.log(formatRows([row], widths)[0]);
  for (const row of [header, ...rows]) print(row);
  await watchRows(fetchItems, (list) => cells(list).rows, print, opts.watchIntervalMs ?? 2000);
}

/** `describe KIND NAME`: the object, its conditions and its recent Events. */
export async function describe(kind: string, name: string, opts: ServerOpts & { namespace?: string }): Promise<void> {
  const named = resourceOrSuggest(kind);
  const obj = (await request(opts, 'GET', resourcePath(named, name, opts.namespace))) as Resource;
  const events = (await request(opts, 'GET', resourcePath(named, name, opts.namespace, '/events'))) as RecordedEvent[];
  process.stdout.write(describeText(obj, events));
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
  const named = resourceOrSuggest(kind);
  const { def } = named;
  await request(opts, 'DELETE', resourcePath(named, name, opts.namespace));
  console.log(`${def.singular}.zvm.dev "${name}" deleted`);
}
