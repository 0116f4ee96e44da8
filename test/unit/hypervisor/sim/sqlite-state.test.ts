import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openSqliteFile } from '../../../../src/durable/index.js';
import { openSqliteSimState } from '../../../../src/hypervisor/sim/sqlite-state.js';
import { addDisk, call, createGuest, records, smallHost, persistenceScenario, tempDirPerTest } from './helpers.js';

describe('simulator state in SQLite', () => {
  const tmp = tempDirPerTest('zvm-simdb-');

  it('restores the whole host state from sim.db', async () => {
    const statePath = join(tmp.path, 'sim.db');
    const first = smallHost({ statePath });
    await persistenceScenario(first);
    const before = first.snapshot();
    await first.close();

    const second = smallHost({ statePath });
    expect(second.snapshot()).toEqual(before);
    expect(await records(second, 'P1')).toContain('MDISK 0100 3390 1 1000 VOL001 MR');
    expect(second.queryUser('P1')).toBe('paused');
    // the extents survive: the next disk lands after both existing ones
    await createGuest(second, 'P3');
    await addDisk(second, 'P3', '100', 10);
    expect(await records(second, 'P3')).toContain('MDISK 0100 3390 2501 10 VOL001 MR');
    await second.close();
  });

  it('has every answered change in the database when the answer arrives, one row per entry', async () => {
    const statePath = join(tmp.path, 'sim.db');
    const host = smallHost({ statePath });
    await createGuest(host, 'A1');
    await addDisk(host, 'A1', '100', 10);
    // no close: another connection (as after a crash) reads what was answered
    const db = openSqliteFile(statePath, { readonly: true });
    const entries = db.prepare('SELECT key, json FROM directory_entries').all() as Array<{ key: string; json: string }>;
    const pool = JSON.parse(db.pluck("SELECT json FROM disk_pools WHERE key = 'POOL1'").get() as string) as { volumes: { extents: { owner: string }[] }[] };
    db.close();
    expect(entries.map((e) => e.key)).toEqual(['A1']);
    expect((JSON.parse(entries[0].json) as { statements: string[] }).statements).toContain('MDISK 0100 3390 1 10 VOL001 MR');
    expect(pool.volumes[0].extents.map((e) => e.owner)).toEqual(['A1']);
    await call(host, 'Image_Delete_DM', 'A1', { data_security_erase: 0 });
    const after = openSqliteFile(statePath, { readonly: true });
    expect(after.pluck('SELECT COUNT(*) FROM directory_entries').get()).toBe(0);
    after.close();
    await host.close();
  });

  it('writes only the rows a change touched, whatever the number of entries', async () => {
    const opened = openSqliteSimState(join(tmp.path, 'sim.db'));
    const { state, persister } = opened;
    for (let i = 0; i < 500; i++) state.entries.set(`G${i}`, { userid: `G${i}`, statements: [`USER G${i} X 1G 2G G`] });
    persister.markDirty();
    await persister.commit();
    expect(opened.rowsWritten()).toBe(500);

    state.entries.get('G7')?.statements.push('MDISK 0100 3390 1 10 VOL001 MR');
    persister.markDirty();
    await persister.commit();
    expect(opened.rowsWritten()).toBe(501);

    // a change made while iterating over every entry still writes only what differs
    for (const e of state.entries.values()) if (e.userid === 'G9') e.statements.push('NICDEF 1000 TYPE QDIO');
    state.entries.delete('G8');
    persister.markDirty();
    await persister.commit();
    expect(opened.rowsWritten()).toBe(503);
    persister.close?.();

    const reopened = openSqliteSimState(join(tmp.path, 'sim.db'));
    expect(reopened.state.entries.size).toBe(499);
    expect(reopened.state.entries.get('G9')?.statements).toContain('NICDEF 1000 TYPE QDIO');
    reopened.persister.close?.();
  });

  it('imports sim.json once into a new sim.db and keeps it as sim.json.migrated', async () => {
    const old = smallHost({ statePath: join(tmp.path, 'sim.json') });
    await persistenceScenario(old);
    const before = old.snapshot();
    await old.close();

    const host = smallHost({ statePath: join(tmp.path, 'sim.db') });
    expect(host.snapshot()).toEqual(before);
    expect(existsSync(join(tmp.path, 'sim.json'))).toBe(false);
    expect(existsSync(join(tmp.path, 'sim.json.migrated'))).toBe(true);
    await host.close();
  });
});
