/**
 * Crash storms (issue 12): 30 guests created and deleted through REST over real HTTP while the
 * standalone process is killed with SIGKILL at several moments. After each restart and convergence:
 * no guest on the host without its resource, no acknowledged create missing, no acknowledged
 * delete back. Once with the simulator inside the process (the whole process group is killed), once
 * with the simulator as its own `zvm-operator sim` process over SMAPI TCP (only the operator dies).
 * The first uses the default store (SQLite), the second the JSON store, so both are held to it.
 */
import { jest } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  awaitConvergence, crash, Ledger, logMatch, simStateFile, spawnGroup, startOperator, stopGracefully, storm, violations,
  type HostView, type Operator,
} from './crash-storm-support.js';
import { tempStateDir } from './helpers.js';

jest.setTimeout(900_000);

const USERIDS = Array.from({ length: 30 }, (_, i) => `CS${String(i + 1).padStart(3, '0')}`);
const CONVERGE_MS = 240_000;

interface Round {
  name: string;
  /** from the converged set of guests present, what to create and what to delete */
  plan(present: Set<string>): { creates: string[]; deletes: string[]; killAfterAcks: number };
}

const createStorm = (killAfterAcks: number): Round => ({
  name: `create storm, killed after ${killAfterAcks} acknowledgements`,
  plan: (present) => ({ creates: USERIDS.filter((u) => !present.has(u)), deletes: [], killAfterAcks }),
});

/** Deletes two guests of every three present. */
const deleteStorm = (killAfterAcks: number): Round => ({
  name: `delete storm, killed after ${killAfterAcks} acknowledgements`,
  plan: (present) => ({ creates: [], deletes: [...present].filter((_, i) => i % 3 !== 0), killAfterAcks }),
});

/** Re-creates what is gone (acknowledged deletes among them) while deleting every other guest present. */
const mixedStorm = (killAfterAcks: number): Round => ({
  name: `mixed storm, killed after ${killAfterAcks} acknowledgements`,
  plan: (present) => ({
    creates: USERIDS.filter((u) => !present.has(u)),
    deletes: [...present].filter((_, i) => i % 2 === 0),
    killAfterAcks,
  }),
});

interface World {
  start(): Promise<Operator>;
  host: HostView;
}

/** Runs the rounds; after each crash the next start must converge without breaking the ledger. */
async function runRounds(world: World, rounds: Round[]): Promise<string[]> {
  const ledger = new Ledger();
  const figures: string[] = [];
  let op = await world.start();
  let present = new Set<string>();
  for (const round of rounds) {
    const plan = round.plan(present);
    const t0 = Date.now();
    const result = await storm(op, plan, ledger, () => crash(op.proc));
    expect(result.refused).toEqual([]);
    const restartAt = Date.now();
    op = await world.start();
    const { guests, onHost } = await awaitConvergence(op, world.host, CONVERGE_MS);
    expect(violations(ledger, guests, onHost)).toEqual([]);
    present = new Set(guests.map((g) => g.spec.userid));
    figures.push(`${round.name}: ${plan.creates.length} creates + ${plan.deletes.length} deletes, ${result.acked} acknowledged, `
      + `${result.cutOff} cut off; storm ${restartAt - t0} ms, restart + convergence ${Date.now() - restartAt} ms, ${present.size} guests after`);
  }
  await stopGracefully(op.proc);
  expect(ledger.count('created')).toBeGreaterThan(0);
  expect(ledger.count('deleted')).toBeGreaterThan(0);
  return figures;
}

describe('crash storm: standalone with its simulator in the process, process group killed with SIGKILL (SQLite store)', () => {
  const state = tempStateDir();
  afterAll(() => state.cleanup());

  it('loses no acknowledged create, brings back no acknowledged delete, leaks no guest', async () => {
    const world: World = { start: () => startOperator(state.dir), host: simStateFile(join(state.dir, 'sim.db')) };
    const figures = await runRounds(world, [createStorm(10), deleteStorm(6), mixedStorm(3)]);
    console.log(`crash storm (in-process simulator):\n  ${figures.join('\n  ')}`);
  });
});

describe('crash storm: the simulator as its own process over SMAPI TCP, only the operator killed (JSON store)', () => {
  const state = tempStateDir();
  afterAll(() => state.cleanup());

  it('loses no acknowledged create, brings back no acknowledged delete, leaks no guest', async () => {
    const hostDir = join(state.dir, 'host');
    mkdirSync(hostDir);
    const credentials = { ZVM_SIM_USERID: 'CRASHT', ZVM_SIM_PASSWORD: 'storm-pw' };
    const sim = spawnGroup('sim', ['sim', '--port', '0', '--state', join(hostDir, 'sim.db')], join(hostDir, 'sim.log'), credentials);
    try {
      const port = (await logMatch(sim, /"smapiPort":(\d+)/, 0))[1]!;
      const operatorDir = join(state.dir, 'operator');
      const world: World = {
        start: () => startOperator(operatorDir, ['--store', 'json', '--sim-address', `127.0.0.1:${port}`, '--sim-userid', credentials.ZVM_SIM_USERID, '--sim-password', credentials.ZVM_SIM_PASSWORD]),
        host: simStateFile(join(hostDir, 'sim.db')),
      };
      const figures = await runRounds(world, [createStorm(4), mixedStorm(8)]);
      expect(sim.exitStatus()).toBeUndefined(); // the host lived through every operator crash
      console.log(`crash storm (simulator over SMAPI TCP):\n  ${figures.join('\n  ')}`);
    } finally {
      await stopGracefully(sim);
    }
  });
});
