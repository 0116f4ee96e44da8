/** REST's view of a simulated host (src/cmd/sim-state-view.ts): it follows the controller's state file and never writes it. */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createSimStateView } from '../../../../src/cmd/sim-state-view.js';
import type { SimHost } from '../../../../src/hypervisor/sim/index.js';
import { call, createGuest, smallHost, tempDirPerTest } from './helpers.js';

describe('the simulated host REST reads', () => {
  const tmp = tempDirPerTest('zvm-sim-view-');

  const query = async (view: ReturnType<typeof createSimStateView>, userid: string) => (await view.handle({ fn: 'Image_Query_DM', target: userid, params: {} })).rc;
  const powerOf = async (view: ReturnType<typeof createSimStateView>, userid: string) =>
    (await view.handle({ fn: 'Image_Status_Query', target: userid, params: {} })).rs;

  it('answers from what the controller\'s simulator last saved, and never writes the file', async () => {
    const statePath = join(tmp.path, 'zvm-sim-default.json');
    const view = createSimStateView(statePath);
    expect(await query(view, 'A1')).not.toBe(0); // no file yet: an empty host

    const controller: SimHost = smallHost({ statePath });
    await createGuest(controller, 'A1');
    expect(await query(view, 'A1')).toBe(0);
    const loggedOff = await powerOf(view, 'A1');

    await call(controller, 'Image_Activate', 'A1');
    expect(await powerOf(view, 'A1')).not.toBe(loggedOff);

    const saved = statSync(statePath);
    await query(view, 'A1');
    await view.close();
    const after = statSync(statePath);
    expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: saved.ino, mtimeMs: saved.mtimeMs });
    await controller.close();
  });
});
