/**
 * feilong never upgrades its tables in place, so a host keeps the layout it was first created with
 * (the sample's README): the reader looks columns up by name, and a missing file or table is reported.
 * These databases are built here in the 2021 layouts (fcp without templates, chpid, state, owner).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sqliteDriver } from '../../../src/durable/index.js';
import { readFeilongDatabases } from '../../../src/migrate/feilong-db.js';
import { computeMigration } from '../../../src/migrate/migrate.js';
import { tempStateDir } from '../standalone/helpers.js';

function makeDb(file: string, statements: string[]): void {
  const db = new (sqliteDriver().DatabaseSync)(file);
  for (const s of statements) db.exec(s);
  db.close();
}

describe('older feilong database layouts', () => {
  it('reads a 2021 FCP table (no templates) and lists its devices as not mapped, with their usage', async () => {
    const { dir, cleanup } = tempStateDir();
    try {
      const dbDir = join(dir, 'db');
      mkdirSync(dbDir);
      makeDb(join(dbDir, 'sdk_fcp.sqlite'), [
        'CREATE TABLE fcp(fcp_id char(4) NOT NULL, assigner_id varchar(8) NOT NULL, connections integer NOT NULL, reserved integer NOT NULL, path integer NOT NULL, comment varchar(128), wwpn_npiv varchar(16), wwpn_phy varchar(16), PRIMARY KEY (fcp_id))',
        "INSERT INTO fcp VALUES ('1A00', 'lnx1', 1, 1, 0, '', 'c05076de33000350', 'c05076de33002e41')",
      ]);
      makeDb(join(dbDir, 'sdk_image.sqlite'), [
        'CREATE TABLE image (imagename varchar(128) PRIMARY KEY, imageosdistro varchar(16), md5sum varchar(512), disk_size_units varchar(512), image_size_in_bytes varchar(512), type varchar(16), comments varchar(128))',
        "INSERT INTO image VALUES ('../evil', 'rhel7', 'x', '3338:CYL', '1', 'rootonly', NULL)",
      ]);
      const data = readFeilongDatabases(dbDir);
      expect(data.fcps).toEqual([expect.objectContaining({ fcpId: '1a00', assignerId: 'LNX1', connections: 1, reserved: 1, state: '', tmplId: '' })]);
      expect(data.missing).toEqual(expect.arrayContaining([
        expect.stringMatching(/^sdk_guest\.sqlite: not present/),
        expect.stringMatching(/^sdk_network\.sqlite: not present/),
        expect.stringMatching(/^sdk_fcp\.sqlite: table template is absent/),
      ]));
      const m = await computeMigration({ dbDir, host: 'default', namespace: 'default' });
      expect(m.items).toEqual([]);
      expect(m.unmapped).toEqual(expect.arrayContaining([
        { source: 'sdk_fcp.sqlite fcp 1a00', reason: expect.stringMatching(/in no template.*assigner LNX1, reserved 1, connections 1/) },
        { source: 'sdk_image.sqlite image ../evil', reason: expect.stringMatching(/not a safe repository folder name/) },
        { source: 'sdk_guest.sqlite', reason: expect.stringMatching(/not present/) },
      ]));
    } finally {
      cleanup();
    }
  });
});
