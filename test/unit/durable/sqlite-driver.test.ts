/**
 * The SQLite driver is Node's own node:sqlite: a Node without it gets a message naming the version
 * needed (not "cannot open the state database"), and the thin layer over it keeps the transaction
 * rules the store and the simulator rely on (nested savepoints, rollback of only what threw).
 */
import { assertNodeHasSqlite, MIN_NODE_FOR_SQLITE, openSqliteFile } from '../../../src/durable/index.js';

describe('node:sqlite driver', () => {
  it('names the Node version needed when started on an older Node', () => {
    for (const old of ['20.20.2', '22.12.0', '22.17.9']) {
      expect(() => assertNodeHasSqlite(old, '/usr/bin/node')).toThrow(expect.objectContaining({
        code: 'UNAVAILABLE',
        message: expect.stringMatching(new RegExp(`needs Node\\.js ${MIN_NODE_FOR_SQLITE.replace(/\./g, '\\.')} or newer; this is Node\\.js v${old.replace(/\./g, '\\.')} \\(/usr/bin/node\\)`)),
      }));
      expect(() => assertNodeHasSqlite(old)).not.toThrow(/restore|damaged|cannot open/);
    }
    for (const ok of [MIN_NODE_FOR_SQLITE, '22.23.3', '24.0.0', '25.1.0']) expect(() => assertNodeHasSqlite(ok)).not.toThrow();
  });

  it('nests transactions as savepoints: an inner throw undoes only itself, an outer throw everything', () => {
    const db = openSqliteFile(':memory:');
    db.exec('CREATE TABLE t (v INTEGER NOT NULL UNIQUE)');
    const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
    db.transaction(() => {
      insert.run(1);
      expect(() => db.transaction(() => { insert.run(2); insert.run(1); })).toThrow(/UNIQUE/);
      insert.run(3);
    });
    expect(db.inTransaction).toBe(false);
    expect(() => db.transaction(() => { insert.run(4); throw new Error('no'); })).toThrow('no');
    expect(db.pluck('SELECT v FROM t ORDER BY v').all()).toEqual([1, 3]);
    expect(db.pluck('SELECT COUNT(*) FROM t').get()).toBe(2);
    expect([...db.pluck('SELECT v FROM t ORDER BY v DESC').iterate()]).toEqual([3, 1]);
    expect(db.pragma('page_size')).toEqual(expect.any(Number));
    db.close();
  });
});
