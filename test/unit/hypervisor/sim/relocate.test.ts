/** VMRELOCATE on the simulator, through the codec (params and error buffer) and the SMAPI adapter. */
import { HypervisorError } from '../../../../src/errors.js';
import { createInProcessCaller } from '../../../../src/hypervisor/smapi/in-process-caller.js';
import { decodeOutput, decodeParams, encodeOutput, encodeParams } from '../../../../src/hypervisor/smapi/codec.js';
import { createSmapiHypervisor } from '../../../../src/hypervisor/zvm/hypervisor.js';
import { relocationParams } from '../../../../src/hypervisor/zvm/relocation.js';
import { call, createGuest, rcrs, smallHost } from './helpers.js';

describe('VMRELOCATE codec', () => {
  it('sends plain key=value items (no total length) and decodes them back', () => {
    const params = { action: 'MOVE', destination: 'ZVMSIM2', immediate: 'YES' };
    const body = encodeParams('VMRELOCATE', params);
    expect(body.toString('latin1')).toBe('action=MOVE\0destination=ZVMSIM2\0immediate=YES\0');
    expect(decodeParams('VMRELOCATE', body)).toEqual(params);
  });

  it('carries the failure error buffer without a length (HCP message numbers)', () => {
    const bytes = encodeOutput('VMRELOCATE', { error_data: ['1940 1996'] }, 4, 3000);
    expect(bytes.toString('latin1')).toBe('1940 1996\0');
    expect(decodeOutput('VMRELOCATE', bytes, 4, 3000)).toEqual({ error_data: ['1940 1996'] });
  });

  it('maps a request to feilong keywords, leaving out what is not asked', () => {
    expect(relocationParams({ destination: 'zvmsim2', test: true, force: ['ARCHITECTURE', 'STORAGE'], maxTotal: 60 }))
      .toEqual({ action: 'TEST', destination: 'ZVMSIM2', force: 'ARCHITECTURE STORAGE', immediate: '', max_total: '60', max_quiesce: '' });
  });
});

describe('VMRELOCATE on the simulator', () => {
  async function running(userid = 'LINUX01', config = {}) {
    const host = smallHost(config);
    await createGuest(host, userid);
    expect(rcrs(await call(host, 'Image_Activate', userid))).toEqual([0, 0]);
    return host;
  }

  it('TEST to another SSI member succeeds and leaves the guest running here', async () => {
    const host = await running();
    expect(rcrs(await call(host, 'VMRELOCATE', 'LINUX01', { action: 'TEST', destination: 'ZVMSIM2' }))).toEqual([0, 0]);
    expect(host.queryUser('LINUX01')).toBe('on');
  });

  it('MOVE ends the session here: the guest leaves the active list, the directory entry stays', async () => {
    const host = await running();
    expect(rcrs(await call(host, 'VMRELOCATE', 'LINUX01', { action: 'MOVE', destination: 'zvmsim2' }))).toEqual([0, 0]);
    expect(host.queryUser('LINUX01')).toBe('off');
    expect(host.consoleOf('LINUX01')).toContain('RELOCATED TO ZVMSIM2');
    const active = await call(host, 'Image_Status_Query', '*');
    expect(((active.output.image_name_array ?? []) as { image_name: string }[]).map((e) => e.image_name)).not.toContain('LINUX01');
  });

  it.each([
    ['an unknown destination', { action: 'MOVE', destination: 'NOWHERE' }, [4, 3000]],
    ['this system as destination', { action: 'TEST', destination: 'ZVMSIM' }, [4, 3000]],
    ['CANCEL with nothing in progress', { action: 'CANCEL' }, [4, 3001]],
    ['an unknown action', { action: 'JUMP', destination: 'ZVMSIM2' }, [24, 219]],
    ['a missing destination', { action: 'MOVE' }, [24, 224]],
  ])('refuses %s', async (_label, params, expected) => {
    const host = await running();
    expect(rcrs(await call(host, 'VMRELOCATE', 'LINUX01', params))).toEqual(expected);
    expect(host.queryUser('LINUX01')).toBe('on');
  });

  it('refuses a guest that is not logged on (200/12) or not defined (200/4)', async () => {
    const host = smallHost();
    await createGuest(host, 'LINUX02');
    expect(rcrs(await call(host, 'VMRELOCATE', 'LINUX02', { action: 'MOVE', destination: 'ZVMSIM2' }))).toEqual([200, 12]);
    expect(rcrs(await call(host, 'VMRELOCATE', 'NOSUCH', { action: 'MOVE', destination: 'ZVMSIM2' }))).toEqual([200, 4]);
  });

  it('answers 4/3008 on a host that is not an SSI member', async () => {
    const host = await running('LINUX01', { ssiMembers: [] });
    expect(rcrs(await call(host, 'VMRELOCATE', 'LINUX01', { action: 'TEST', destination: 'ZVMSIM2' }))).toEqual([4, 3008]);
  });

  it('is reached through the SMAPI adapter as hv.relocation, failures as typed errors', async () => {
    const host = await running();
    const hv = createSmapiHypervisor({ hostName: 'default', caller: createInProcessCaller({ handler: host }) });
    await hv.relocation!.relocate('linux01', { destination: 'ZVMSIM2', test: true });
    const err = await hv.relocation!.relocate('LINUX01', { destination: 'NOWHERE' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HypervisorError);
    expect(err).toMatchObject({ fn: 'VMRELOCATE', rc: 4, rs: 3000 });
    await hv.relocation!.relocate('LINUX01', { destination: 'ZVMSIM2', immediate: true, maxTotal: 30 });
    expect(await hv.queryPowerState('LINUX01')).toBe('off');
  });
});
