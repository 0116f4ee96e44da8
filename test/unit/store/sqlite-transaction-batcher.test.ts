import { openSqliteFile } from '../../../src/durable/index.js';
import { silentLogger } from '../../../src/log.js';
import { createTransactionBatcher } from '../../../src/store/sqlite/transaction-batcher.js';

function setup(failCommit: () => boolean) {
  const db = openSqliteFile(':memory:');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL UNIQUE)');
  const seen = { commits: 0, rollbacks: 0 };
  const batches = createTransactionBatcher({
    db,
    log: silentLogger(),
    beforeCommit() {
      if (failCommit()) throw new Error('disk full');
    },
    afterCommit: () => void (seen.commits += 1),
    afterRollback: () => void (seen.rollbacks += 1),
  });
  const insert = (v: number) => batches.apply(() => db.prepare('INSERT INTO t (v) VALUES (?)').run(v));
  const values = () => db.pluck('SELECT v FROM t ORDER BY v').all();
  return { db, batches, seen, insert, values };
}

describe('sqlite transaction batcher (group commit)', () => {
  it('commits the writes of one turn of the event loop together', async () => {
    const { seen, insert, values, batches } = setup(() => false);
    await Promise.all([1, 2, 3].map((v) => insert(v).committed));
    expect(seen.commits).toBe(1);
    expect(batches.open).toBe(false);
    await insert(4).committed;
    expect(seen.commits).toBe(2);
    expect(values()).toEqual([1, 2, 3, 4]);
  });

  it('undoes only the write that threw, inside its savepoint', async () => {
    const { insert, values } = setup(() => false);
    const first = insert(1);
    expect(() => insert(1)).toThrow(expect.objectContaining({ code: 'UNAVAILABLE', cause: expect.objectContaining({ message: expect.stringMatching(/UNIQUE/) }) }));
    const third = insert(2);
    await Promise.all([first.committed, third.committed]);
    expect(values()).toEqual([1, 2]);
  });

  it('rolls the whole batch back when its commit fails and rejects every writer with UNAVAILABLE', async () => {
    let fail = true;
    const { seen, insert, values } = setup(() => fail);
    const results = await Promise.allSettled([insert(1).committed, insert(2).committed]);
    expect(results.map((r) => r.status === 'rejected' && (r.reason as { code?: string }).code)).toEqual(['UNAVAILABLE', 'UNAVAILABLE']);
    expect(seen).toEqual({ commits: 0, rollbacks: 1 });
    expect(values()).toEqual([]);
    fail = false;
    await insert(3).committed;
    expect(values()).toEqual([3]);
  });

  it('lets a no-op writer wait for the open batch', async () => {
    const { batches, insert, seen } = setup(() => false);
    await expect(batches.settled()).resolves.toBeUndefined();
    insert(1);
    await batches.settled();
    expect(seen.commits).toBe(1);
  });
});
