/**
 * The import rules of src/ (docs/architecture.md §7): the layer order, the entrances of the hypervisor
 * and controllers packages, and controller folders that never import each other. Imports are read with
 * TypeScript's own pre-processor (static, type-only, re-exports and dynamic import()), resolved to files
 * under src/. A failure names each file, what it imports and the rule it breaks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

/**
 * Layers, lowest first: a file may import its own folder and any lower layer, never a higher one
 * nor another folder of its own layer. Top-level files of src/ (errors.ts, log.ts, metrics.ts) and
 * util/ are the base every layer uses.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['(top)', 'util'],
  ['api', 'durable'],
  ['hypervisor', 'store'],
  ['runtime'],
  ['controllers'],
  ['rest'],
  ['migrate'],
  ['cmd'],
  ['capi'],
];

/** Folders of src/controllers/ that hold code shared by the controllers rather than one kind's controller. */
const SHARED_CONTROLLER_FOLDERS = new Set(['kit']);

/**
 * The packages whose inner files only their own code may import, and the files through which the rest
 * of src/ enters them: the hypervisor package's index.ts and the simulated host's own (a server of its
 * own, started by cmd/), as src/hypervisor/index.ts says; the controllers' index.ts (the registry and
 * what other modules reuse).
 */
const ENTRANCES: Readonly<Record<string, readonly string[]>> = {
  hypervisor: ['hypervisor/index.ts', 'hypervisor/sim/index.ts'],
  controllers: ['controllers/index.ts'],
};

/**
 * Violations that exist today and are being removed (issue 22): delete each entry when its import is
 * gone; a stale entry fails the test below. `rule: importer -> imported` for single imports, or
 * `rule: * -> imported` for an inner file still imported from many places.
 */
const KNOWN_VIOLATIONS = new Set<string>([]);

export interface ImportEdge {
  /** importer and imported file, relative to src/, with forward slashes */
  from: string;
  to: string;
}

export interface Violation {
  rule: 'layers' | 'entrance' | 'controller-folders';
  edge: ImportEdge;
  message: string;
}

function folderOf(path: string): string {
  const parts = path.split('/');
  return parts.length === 1 ? '(top)' : parts[0];
}

function layerOf(folder: string): number {
  const index = LAYERS.findIndex((layer) => layer.includes(folder));
  if (index < 0) throw new Error(`src/${folder}/ has no place in LAYERS of test/unit/import-rules.test.ts: add it`);
  return index;
}

/** The controller folder (kind) a file belongs to, or undefined for files at controllers/ root and shared folders. */
function controllerFolderOf(path: string): string | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'controllers' || parts.length < 3) return undefined;
  return parts[1];
}

/** Every rule an import breaks. */
export function checkImport(edge: ImportEdge): Violation[] {
  const { from, to } = edge;
  const found: Violation[] = [];
  const fromFolder = folderOf(from);
  const toFolder = folderOf(to);
  if (fromFolder !== toFolder && layerOf(fromFolder) <= layerOf(toFolder)) {
    const order = LAYERS.map((layer) => layer.join(' ')).join(' < ');
    found.push({ rule: 'layers', edge, message: `src/${from} imports src/${to}: ${fromFolder} may not depend on ${toFolder} (layers, lowest first: ${order})` });
  }
  const entrances = ENTRANCES[toFolder];
  if (entrances && fromFolder !== toFolder && !entrances.includes(to)) {
    found.push({ rule: 'entrance', edge, message: `src/${from} imports src/${to}: outside src/${toFolder}/, import the package through ${entrances.map((e) => `src/${e}`).join(' or ')}` });
  }
  const fromKind = controllerFolderOf(from);
  const toKind = controllerFolderOf(to);
  if (fromKind && toKind && fromKind !== toKind && !SHARED_CONTROLLER_FOLDERS.has(toKind)) {
    found.push({ rule: 'controller-folders', edge, message: `src/${from} imports src/${to}: controllers/${fromKind}/ may not import another controller's folder (controllers/${toKind}/); shared code goes to controllers/kit/` });
  }
  return found;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

const toPosix = (path: string): string => path.split(sep).join('/');

/** Every import between files of src/ (packages and node: modules are not ours to order). */
function importEdges(): ImportEdge[] {
  const edges: ImportEdge[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = toPosix(relative(SRC, file));
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const to = posix.normalize(posix.join(posix.dirname(from), fileName)).replace(/\.js$/, '.ts');
      edges.push({ from, to });
    }
  }
  return edges;
}

function isKnown(violation: Violation): boolean {
  return KNOWN_VIOLATIONS.has(`${violation.rule}: ${violation.edge.from} -> ${violation.edge.to}`) || KNOWN_VIOLATIONS.has(`${violation.rule}: * -> ${violation.edge.to}`);
}

describe('import rules of src/', () => {
  const edges = importEdges();
  const violations = edges.flatMap(checkImport);

  it('finds imports to check (the reader works)', () => {
    expect(edges.length).toBeGreaterThan(500);
  });

  it('keeps the layer order, the package entrances and the controller folders apart', () => {
    expect(violations.filter((v) => !isKnown(v)).map((v) => v.message)).toEqual([]);
  });

  it('lists no known violation that is already gone', () => {
    const present = new Set(violations.flatMap((v) => [`${v.rule}: ${v.edge.from} -> ${v.edge.to}`, `${v.rule}: * -> ${v.edge.to}`]));
    expect([...KNOWN_VIOLATIONS].filter((entry) => !present.has(entry))).toEqual([]);
  });
});

describe('import rule checker', () => {
  it.each([
    ['store/sqlite/change-feed.ts', 'runtime/fifo.ts', 'layers', 'src/store/sqlite/change-feed.ts imports src/runtime/fifo.ts: store may not depend on runtime'],
    ['store/port.ts', 'hypervisor/index.ts', 'layers', 'src/store/port.ts imports src/hypervisor/index.ts: store may not depend on hypervisor'],
    ['rest/app.ts', 'hypervisor/smapi/client.ts', 'entrance', 'src/rest/app.ts imports src/hypervisor/smapi/client.ts: outside src/hypervisor/, import the package through src/hypervisor/index.ts'],
    ['cmd/operator.ts', 'controllers/registry.ts', 'entrance', 'src/cmd/operator.ts imports src/controllers/registry.ts: outside src/controllers/, import the package through src/controllers/index.ts'],
    ['controllers/zimage/reconciler.ts', 'controllers/zguest/reconciler.ts', 'controller-folders', "controllers/zimage/ may not import another controller's folder (controllers/zguest/)"],
  ])('reports %s importing %s as breaking %s', (from, to, rule, message) => {
    const found = checkImport({ from, to });
    expect(found.map((v) => v.rule)).toEqual([rule]);
    expect(found[0].message).toContain(message);
  });

  it.each([
    ['runtime/work-queue.ts', 'util/fifo.ts'],
    ['cmd/main.ts', 'hypervisor/index.ts'],
    ['cmd/sim.ts', 'hypervisor/sim/index.ts'],
    ['rest/app.ts', 'controllers/index.ts'],
    ['controllers/zguest/reconciler.ts', 'controllers/kit/finalizers.ts'],
    ['controllers/registry.ts', 'controllers/zguest/reconciler.ts'],
    ['hypervisor/smapi/client.ts', 'hypervisor/port.ts'],
    ['api/zguest.ts', 'errors.ts'],
  ])('lets %s import %s', (from, to) => {
    expect(checkImport({ from, to })).toEqual([]);
  });
});
