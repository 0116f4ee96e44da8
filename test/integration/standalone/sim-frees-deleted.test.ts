/**
 * The simulator frees what its host deletes: after create → deploy → console → capture → delete
 * cycles (the simulator as its own process behind the SMAPI wire, the management guest over SSH),
 * the bytes of its state — the state database, the management guest's files and the deployed disk
 * contents — are back where they started. Each cycle uses new names, so anything kept per guest or
 * per image would add up.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteFile } from '../../../src/durable/index.js';
import { imageBytes } from '../../wire/mgmt-helpers.js';
import { http, standaloneForSuite } from './helpers.js';

const suite = standaloneForSuite({ smapiTcp: true }, 60_000);
const call = <T = unknown>(method: string, path: string, body?: unknown) => http<T>(suite.app.restUrl, method, path, body);

/** Files and folders below `path`, and their bytes (a file counts itself); absent: nothing. */
function tree(path: string): { paths: number; bytes: number } {
  let st;
  try {
    st = statSync(path);
  } catch {
    return { paths: 0, bytes: 0 };
  }
  if (!st.isDirectory()) return { paths: 1, bytes: st.size };
  return readdirSync(path).map((e) => tree(join(path, e))).reduce((a, b) => ({ paths: a.paths + b.paths, bytes: a.bytes + b.bytes }), { paths: 1, bytes: 0 });
}

/**
 * The simulator's share of the state directory: the management guest's files (repository, console
 * logs, deployed disk contents) and the pages of its database that hold data. The database's
 * write-ahead log is left out: SQLite folds it back into the file every 1000 pages and reuses it.
 */
function simFootprint(): Record<string, number> {
  const db = openSqliteFile(join(suite.dir, 'sim.db'), { readonly: true });
  try {
    const pages = (db.pragma('page_count') as number) - (db.pragma('freelist_count') as number);
    const mgmt = tree(join(suite.dir, 'mgmt'));
    return { mgmtPaths: mgmt.paths, mgmtBytes: mgmt.bytes, dbBytes: pages * (db.pragma('page_size') as number) };
  } finally {
    db.close();
  }
}

async function ok(method: string, path: string, body?: unknown): Promise<void> {
  const res = await call(method, path, body);
  expect({ method, path, status: res.status, errmsg: res.body?.errmsg }).toEqual({ method, path, status: 200, errmsg: '' });
}

async function cycle(i: number, imageUrl: string): Promise<void> {
  const userid = `free${i}`;
  await ok('POST', '/images', { image: { image_name: `img${i}`, url: imageUrl, image_meta: { os_version: 'rhel8.6' } } });
  await ok('POST', '/guests', { guest: { userid, vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }, { size: '1g' }] } });
  await ok('POST', `/guests/${userid}/action`, { action: 'deploy', image: `img${i}` });
  await ok('POST', `/guests/${userid}/action`, { action: 'start' });
  await ok('POST', `/guests/${userid}/action`, { action: 'get_console_output' });
  await ok('POST', `/guests/${userid}/action`, { action: 'capture', image: `cap${i}` });
  await ok('DELETE', `/guests/${userid}`);
  await ok('DELETE', `/images/img${i}`);
  await ok('DELETE', `/images/cap${i}`);
}

describe('the simulator frees what it deletes', () => {
  it('returns to the bytes it started with after three create/deploy/delete cycles', async () => {
    const files = join(suite.dir, 'files');
    mkdirSync(files, { recursive: true });
    const image = join(files, 'big.img');
    writeFileSync(image, imageBytes({ bodyBytes: 2_000_000, level: 0 }));
    // the first cycle writes what every host holds once (its pools' rows, the repository's folders)
    await cycle(0, `file://${image}`);
    const baseline = simFootprint();
    const after: Record<string, number>[] = [];
    for (let i = 1; i <= 3; i++) {
      await cycle(i, `file://${image}`);
      after.push(simFootprint());
    }
    expect(after).toEqual([baseline, baseline, baseline]);
    // nothing of the deleted guests' disks is left (2 MB of contents each)
    expect(baseline.mgmtBytes).toBeLessThan(100_000);
  }, 120_000);
});
