/** A guest's whole lifecycle through the SMAPI client, the wire protocol and the real simulator. */
import { createSmapiClient } from '../../src/hypervisor/smapi/client.js';
import type { SmapiClient } from '../../src/hypervisor/smapi/client.js';
import { SYNC_OPERATION_ID } from '../../src/hypervisor/smapi/functions.js';
import { createSmapiServer } from '../../src/hypervisor/smapi/server.js';
import type { SmapiServer } from '../../src/hypervisor/smapi/server.js';
import { createSimHost } from '../../src/hypervisor/sim/index.js';
import type { SimHost } from '../../src/hypervisor/sim/index.js';

const auth = { userid: 'MAINT', password: 'SECRET' };
let sim: SimHost;
let server: SmapiServer;
let client: SmapiClient;

beforeAll(async () => {
  sim = createSimHost();
  server = await createSmapiServer({ handler: sim, auth, port: 0 });
  client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, poolSize: 2, timeoutMs: 5000, retries: 0 });
});
afterAll(async () => {
  await client.close();
  await server.close();
  await sim.close();
});

const disk = (vdev: string) => ({
  image_disk_number: vdev, image_disk_device_type: '3390', image_disk_allocation_type: 'AUTOG',
  allocation_area_name_or_volser: 'POOL1', allocation_unit_size: 1, image_disk_size: 100,
  image_disk_mode: 'MR', image_disk_formatting: 1,
});

describe('guest lifecycle over the SMAPI wire against the simulator', () => {
  it('creates, powers, pauses, stops and deletes a guest', async () => {
    const rcOf = (r: { rc: number; rs: number }) => [r.rc, r.rs];
    const created = await client.callFn('Image_Create_DM', 'WIRE01', {
      image_record_array: ['USER WIRE01 PASSW0RD 1G 2G G', 'INCLUDE OSDFLT', 'CPU 00 BASE', 'IPL CMS'],
    });
    expect(created).toEqual({ rc: 0, rs: 0, output: { operation_id: SYNC_OPERATION_ID } });

    expect(rcOf(await client.callFn('Image_Disk_Create_DM', 'WIRE01', disk('0100')))).toEqual([0, 0]);
    expect(rcOf(await client.callFn('Image_Disk_Create_DM', 'WIRE01', disk('0101')))).toEqual([0, 0]);
    const entry = await client.callFn('Image_Query_DM', 'WIRE01', {});
    expect(entry.output.image_record_array?.filter((r) => r.startsWith('MDISK'))).toHaveLength(2);

    expect(rcOf(await client.callFn('Image_Activate', 'WIRE01', {}))).toEqual([0, 0]);
    const status = await client.callFn('Image_Status_Query', 'WIRE01', {});
    expect(status).toEqual({ rc: 0, rs: 0, output: { image_name_array: [{ image_name: 'WIRE01' }] } });

    expect(rcOf(await client.callFn('Image_Pause', 'WIRE01', { action: 'pause' }))).toEqual([0, 0]);
    expect(sim.queryUser('WIRE01')).toBe('paused');

    expect(rcOf(await client.callFn('Image_Deactivate', 'WIRE01', { force_time: 'IMMED' }))).toEqual([0, 0]);
    expect(rcOf(await client.callFn('Image_Status_Query', 'WIRE01', {}))).toEqual([0, 12]);

    expect(rcOf(await client.callFn('Image_Delete_DM', 'WIRE01', { data_security_erase: 0 }))).toEqual([0, 0]);
    expect(rcOf(await client.callFn('Image_Query_DM', 'WIRE01', {}))).toEqual([400, 4]);
    expect(client.health()).toMatchObject({ healthy: true, totalFail: 0 });
  });
});
