/**
 * One author per status (docs/architecture.md §7.6): a source scan of every status write in src/, direct
 * (updateStatus, patchStatus) or through a helper that writes one, finds each in the controller folder of
 * the kind it writes, that is in the kind's own reconciler. Observers (drift, outage, orphans, sharding)
 * record facts instead (controllers/kit/facts.ts) and REST writes no status at all. The writes that are
 * not there yet are listed in KNOWN_OTHER_AUTHORS with why; an entry whose write is gone fails, so the
 * list only shrinks.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { KINDS } from '../../../src/api/index.js';

const ROOT = join(process.cwd(), 'src');

/**
 * Where the status-write verbs are implemented or wrapped (the store's adapters, its read cache, a client
 * that refuses them), and the kit's generic helpers, which write whatever object their caller passes (the
 * callers are scanned).
 */
const IMPLEMENTATIONS = [/^store\//, /^runtime\/cached-reads\.ts$/, /^cmd\/kubectl-zvm\/admin-api\.ts$/, /^controllers\/kit\/(status|transfer-progress)\.ts$/];

/** Calls that write a status: the verbs, and the helpers over them (the object's own kind unless the call names one). */
const WRITE = /\b(updateStatus|patchStatus|writeStatusIfChanged|reportProblem|statusProgressWriter)\s*(<\s*(\w+)\s*>)?\s*\(/g;


/** Writes of a status by something other than the kind's reconciler, still to be moved (file → kind, why). */
const KNOWN_OTHER_AUTHORS: Record<string, { kind: string; why: string }> = {
  'migrate/apply.ts': { kind: '*', why: 'the one-off migration writes the status feilong had (not a running process)' },
};

const folderKind = new Map(Object.values(KINDS).map((d) => [d.kind.toLowerCase(), d.kind]));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The code without comments and without the lines that define a helper (`function name(`). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '').replace(/function\s+\w+\s*(<[^>]*>)?\s*\(/g, '');
}

interface Write { file: string; kind: string }

/** Every status write of src/ and the kind it writes ('own': the kind of the folder it is in). */
function statusWrites(): Write[] {
  return sources(ROOT).flatMap((path) => {
    const file = relative(ROOT, path).split('\\').join('/');
    if (IMPLEMENTATIONS.some((r) => r.test(file))) return [];
    const text = code(readFileSync(path, 'utf8'));
    return [...text.matchAll(WRITE)].map((m) => {
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 80);
      const named = /^\s*'(Z\w+)'/.exec(after)?.[1] ?? /kind:\s*'(Z\w+)'/.exec(after)?.[1];
      return { file, kind: m[3] ?? named ?? 'own' };
    });
  });
}

/** The kind whose reconciler lives in the file's controller folder, if any. */
function ownerOf(file: string): string | undefined {
  const folder = /^controllers\/([\w-]+)\//.exec(file)?.[1];
  return folder ? folderKind.get(folder.replace(/-/g, '')) : undefined;
}

describe('one author per status', () => {
  const writes = statusWrites();

  it('finds the writes it scans for (the scan itself works)', () => {
    expect(writes.some((w) => w.file === 'controllers/zguest/reconciler.ts')).toBe(true);
    expect(writes.some((w) => w.file === 'controllers/zhost/reconciler.ts')).toBe(true);
  });

  it('every status is written only in its own kind\'s controller folder, never by REST, the command layer or an observer', () => {
    const strays = writes.filter((w) => {
      if (KNOWN_OTHER_AUTHORS[w.file]) return false;
      const owner = ownerOf(w.file);
      return !owner || (w.kind !== 'own' && w.kind !== owner);
    });
    expect(strays).toEqual([]);
  });

  it('writes no status from the drift detector, outage tracker, orphan sweeper or the shard coordinator', () => {
    const observers = /^(controllers\/zguest\/(drift|outage|orphan)[\w-]*\.ts|cmd\/sharded-operator\.ts|runtime\/sharding\/.*)$/;
    expect(writes.filter((w) => observers.test(w.file))).toEqual([]);
  });

  it('lists as known only writes that still exist, of the kind it says', () => {
    for (const [file, known] of Object.entries(KNOWN_OTHER_AUTHORS)) {
      const found = writes.filter((w) => w.file === file);
      expect([file, found.length > 0]).toEqual([file, true]);
      if (known.kind !== '*') expect([file, found.some((w) => w.kind === known.kind)]).toEqual([file, true]);
    }
  });
});
