/**
 * A file punched to a guest's reader through the management guest, over the simulator's SSH endpoint:
 * `vmur punch -r -u <USERID> -N <name>.<type>` leaves the bytes in that guest's reader exactly, listed
 * the way Ignition's zvm provider reads `vmur li` (coreos/ignition internal/providers/zvm: columns
 * ORIGINID FILE CLASS-A CLASS-B RECORDS CPY HOLD DATE TIME NAME TYPE DIST; NAME is field 9, TYPE field 10),
 * and the staged copy is gone afterwards.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import { createMgmtOps } from '../../src/hypervisor/mgmt/index.js';
import type { Hypervisor } from '../../src/hypervisor/port.js';
import { createSimHost, type SimHost } from '../../src/hypervisor/sim/index.js';
import { vmurList } from '../../src/hypervisor/sim/ssh/reader.js';
import { startSimSshServer, type SimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import { createInProcessCaller } from '../../src/hypervisor/smapi/in-process-caller.js';
import { createSmapiHypervisor } from '../../src/hypervisor/zvm/hypervisor.js';
import { tempDir } from './mgmt-helpers.js';

const tmp = tempDir('zvm-punch-');
let sim: SimHost;
let ssh: SimSshServer;
let mgmt: MgmtOps;
let hv: Hypervisor;

beforeAll(async () => {
  sim = createSimHost();
  hv = createSmapiHypervisor({ hostName: 'sim', caller: createInProcessCaller({ handler: sim }) });
  ssh = await startSimSshServer({ sim, dataDir: join(tmp.dir, 'mgmt'), username: 'zcc', password: 'pw' });
  mgmt = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: 'zcc', password: 'pw', hostKeySha256: ssh.hostKeySha256 }, repository: '/var/lib/zvmsdk/images' });
  await hv.createGuest({ userid: 'NODE0001', vcpus: 1, maxCpus: 2, memory: '1G', maxMemory: '2G' });
});

afterAll(async () => {
  await mgmt.close();
  await hv.close();
  await ssh.close();
  await sim.close();
  tmp.cleanup();
});

describe('punching a file to a guest\'s reader', () => {
  it('keeps the bytes exactly and lists the file as Ignition looks for it', async () => {
    const payload = Buffer.concat([Buffer.from('{"ignition":{"version":"3.4.0"}}'), randomBytes(517)]);
    await mgmt.punchFile!('node0001', { name: 'config.ign', bytes: payload });
    const [file] = sim.readerFiles('NODE0001');
    expect(file).toMatchObject({ type: 'PUN', cls: 'A', name: 'config', fileType: 'ign' });
    expect(Buffer.from(file!.data!, 'base64').equals(payload)).toBe(true);
    const listed = vmurList(sim, 'NODE0001').stdout.split('\n')[1]!.trim().split(/\s+/);
    // 549 bytes are 7 records of 80
    expect([listed[1], listed[4], listed[9], listed[10]]).toEqual([String(file!.spoolId).padStart(4, '0'), '00000007', 'config', 'ign']);
    expect(readdirSync(join(ssh.fsRoot, 'var/lib/zvmsdk/images/transport'))).toEqual([]);
  });

  it('refuses a name that is not <name>.<type> of 1-8 characters and a guest that does not exist, leaving nothing staged', async () => {
    await expect(mgmt.punchFile!('NODE0001', { name: 'much-too-long.ign', bytes: 'x' })).rejects.toThrow(/not <name>.<type>/);
    await expect(mgmt.punchFile!('NOBODY', { name: 'config.ign', bytes: 'x' })).rejects.toMatchObject({ rs: 4, message: expect.stringContaining('NOBODY not in CP directory') });
    expect(readdirSync(join(ssh.fsRoot, 'var/lib/zvmsdk/images/transport'))).toEqual([]);
    expect(sim.readerFiles('NODE0001')).toHaveLength(1);
  });

  it('takes the reader along when the guest is deleted', async () => {
    await hv.deleteGuest('NODE0001');
    expect(sim.readerFiles('NODE0001')).toEqual([]);
  });
});
