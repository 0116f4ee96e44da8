import type { ZFcpTemplate } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { getWithBody, http, startTestStandalone, tempStateDir } from './helpers.js';

type Template = Record<string, unknown> & { id: string };
type Connector = { zvm_fcp: string[]; wwpns: string[]; fcp_paths: number; fcp_template_id: string; is_reserved_changed: boolean; host: string };

const connection = (fcps: string[], templateId: string, extra: Record<string, unknown> = {}) => ({
  info: {
    connection: {
      assigner_id: 'vol01', zvm_fcp: fcps, fcp_template_id: templateId, target_wwpn: ['0x5005076802100C1B', '0x5005076802200C1B'],
      target_lun: '0x0000000000000001', os_version: 'rhel8.6', multipath: true, mount_point: '/dev/sdz', ...extra,
    },
  },
});

describe('volumes and FCP templates over real HTTP against standalone mode', () => {
  const state = tempStateDir();
  let app: Standalone;
  let base: string;
  let tmpl: Template;
  beforeAll(async () => {
    app = await startTestStandalone(state.dir);
    base = app.restUrl;
    const guest = await http(base, 'POST', '/guests', { guest: { userid: 'vol01', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } });
    expect(guest.status).toBe(200);
  });
  afterAll(async () => {
    await app.stop();
    state.cleanup();
  });

  const usage = async (fcp: string) => (await http<unknown[]>(base, 'GET', `/volumes/fcp/${fcp}`)).body.output;
  const directory = async () => (await http<{ user_direct: string[] }>(base, 'GET', '/guests/vol01')).body.output.user_direct;

  it('creates a template and answers its fcp_template output', async () => {
    const res = await http<{ fcp_template: Template }>(base, 'POST', '/volumes/fcptemplates', {
      name: 'tmpl one', description: 'two paths', fcp_devices: '1a00-1a03;1b00-1b03', host_default: 'yes', storage_providers: ['v7k'],
    });
    expect(res.status).toBe(200);
    tmpl = res.body.output.fcp_template;
    expect(tmpl).toMatchObject({
      name: 'tmpl one', description: 'two paths', host_default: true, storage_providers: ['v7k'], min_fcp_paths_count: 2,
      pchids: { add: { all: [], first_used_by_templates: [] } }, cpc_sn: expect.any(String), lpar: expect.any(String), hypervisor_hostname: expect.any(String),
    });
    expect(tmpl.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it.each(['1a0-1a03', '1a03-1a00;1b00', '1a00;;1b00', '1a00-1a01;1a01', 'xyz'])('refuses the malformed FCP range %j with a 400 envelope and creates nothing', async (bad) => {
    const before = (await http<{ fcp_templates: Template[] }>(base, 'GET', '/volumes/fcptemplates')).body.output.fcp_templates.length;
    const res = await http(base, 'POST', '/volumes/fcptemplates', { name: 'bad', fcp_devices: bad });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ overallRC: 100, rc: 100, rs: 3, modID: 400, output: '' });
    const edit = await http(base, 'PUT', `/volumes/fcptemplates/${tmpl.id}`, { fcp_devices: bad });
    expect(edit.status).toBe(400);
    expect((await http<{ fcp_templates: Template[] }>(base, 'GET', '/volumes/fcptemplates')).body.output.fcp_templates.length).toBe(before);
    expect((await app.store.get<ZFcpTemplate>('ZFcpTemplate', { name: tmpl.id }))?.spec.fcpDevices).toBe('1a00-1a03;1b00-1b03');
  });

  it('refuses a min_fcp_paths_count above the path count (409, rs 23) and schema errors (400)', async () => {
    const res = await http(base, 'POST', '/volumes/fcptemplates', { name: 'x', fcp_devices: '1c00', min_fcp_paths_count: 2 });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ overallRC: 409, modID: 30, rs: 23 });
    expect((await http(base, 'POST', '/volumes/fcptemplates', { description: 'no name' })).status).toBe(400);
    expect((await http(base, 'POST', '/volumes/fcptemplates', { name: 'x', bogus: 1 })).status).toBe(400);
  });

  it('lists templates, filters them and answers 404 for an unknown id', async () => {
    const list = await http<{ fcp_templates: Template[] }>(base, 'GET', '/volumes/fcptemplates');
    // PCHIDs as the management guest's CP answers QUERY CHPID xx PCHID for the devices' CHPIDs, sorted
    expect(list.body.output.fcp_templates).toEqual([expect.objectContaining({ id: tmpl.id, name: 'tmpl one', pchids: ['0264', '02E4'] })]);
    const byId = await http<{ fcp_templates: Template[] }>(base, 'GET', `/volumes/fcptemplates?template_id_list=${encodeURIComponent(`['${tmpl.id}']`)}`);
    expect(byId.body.output.fcp_templates.map((t) => t.id)).toEqual([tmpl.id]);
    const missing = await http(base, 'GET', `/volumes/fcptemplates?template_id_list=${encodeURIComponent("['nope']")}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ overallRC: 404, modID: 30, errmsg: 'FCP Multipath Template nope does not exist.' });
    expect((await http(base, 'GET', '/volumes/fcptemplates?foo=1')).status).toBe(400);
  });

  it('answers details with statistics by default and raw rows on request, synced with the host', async () => {
    const res = await http<{ fcp_templates: Record<string, unknown>[] }>(base, 'GET', '/volumes/fcptemplates/detail?raw=true&sync_with_zvm=true');
    expect(res.status).toBe(200);
    const [detail] = res.body.output.fcp_templates;
    // counts per PCHID (feilong-client-go decodes them as map[string]int), lower-case chpids/pchids sections
    expect(detail.statistics).toMatchObject({
      0: { total: '1A00 - 1A03', total_count: { '02E4': 4 }, available: '1A00 - 1A03', available_count: { '02E4': 4 }, allocated: '', chpids: { 27: '1A00 - 1A03' }, pchids: { '02E4': '27' } },
      1: { total: '1B00 - 1B03', total_count: { '0264': 4 }, chpids: { 28: '1B00 - 1B03' }, pchids: { '0264': '28' } },
    });
    expect(detail.pchid_to_phy_wwpn).toEqual({ '02E4': 'c05076de33000027', '0264': 'c05076de33000028' });
    // feilong's raw row: owner 'none' when z/VM reports none, last column fcp.tmpl_id ('' until allocated)
    expect((detail.raw as Record<string, unknown[][]>)['0'][0]).toEqual(['1a00', tmpl.id, '', 0, 0, 'c05076de33001a00', 'c05076de33000027', '27', '02E4', 'free', 'none', '']);
    const noStats = await http<{ fcp_templates: Record<string, unknown>[] }>(base, 'GET', '/volumes/fcptemplates/detail?statistics=yes');
    expect(noStats.body.output.fcp_templates[0]).not.toHaveProperty('statistics');
  });

  it('reserves one FCP per path for a guest, attaches, refuses to delete the template, detaches and releases', async () => {
    const conn = await getWithBody<Connector>(base, '/volumes/conn/vol01', JSON.stringify({ info: { reserve: true } }));
    expect(conn.status).toBe(200);
    expect(conn.body.output).toMatchObject({ zvm_fcp: ['1a00', '1b00'], wwpns: ['c05076de33001a00', 'c05076de33001b00'], fcp_paths: 2, fcp_template_id: tmpl.id, is_reserved_changed: true });
    expect(await usage('1a00')).toEqual(['VOL01', 1, 0, tmpl.id]);
    const again = await getWithBody<Connector>(base, '/volumes/conn/vol01', JSON.stringify({ info: { reserve: true } }));
    expect(again.body.output).toMatchObject({ zvm_fcp: ['1a00', '1b00'], is_reserved_changed: false });

    const attach = await http(base, 'POST', '/guests/volumes', connection(['1a00', '1b00'], tmpl.id));
    expect(attach.status).toBe(200);
    expect(attach.body).toMatchObject({ overallRC: 0, output: '' });
    expect(await usage('1A00')).toEqual(['VOL01', 1, 1, tmpl.id]);
    expect(await directory()).toEqual(expect.arrayContaining(['DEDICATE 1A00 1A00', 'DEDICATE 1B00 1B00']));
    const twice = await http(base, 'POST', '/guests/volumes', connection(['1a00', '1b00'], tmpl.id));
    expect(twice.body).toMatchObject({ overallRC: 300, modID: 30, rs: 3 });

    const del = await http(base, 'DELETE', `/volumes/fcptemplates/${tmpl.id}`);
    expect(del.status).toBe(409);
    expect(del.body).toMatchObject({ overallRC: 409, modID: 30, rs: 22 });

    const detach = await http(base, 'DELETE', '/guests/volumes', connection(['1a00', '1b00'], tmpl.id));
    expect(detach.status).toBe(200);
    expect(await usage('1a00')).toEqual(['VOL01', 1, 0, tmpl.id]);
    expect((await directory()).some((l) => l.startsWith('DEDICATE'))).toBe(false);
    const notAttached = await http(base, 'DELETE', '/guests/volumes', connection(['1a00', '1b00'], tmpl.id));
    expect(notAttached.body).toMatchObject({ overallRC: 300, modID: 30, rs: 4 });

    const release = await getWithBody<Connector>(base, '/volumes/conn/vol01', JSON.stringify({ info: { reserve: false } }));
    expect(release.body.output).toMatchObject({ zvm_fcp: ['1a00', '1b00'], is_reserved_changed: true });
    // released: feilong clears fcp.tmpl_id
    expect(await usage('1a00')).toEqual(['', 0, 0, '']);
  });

  it('rolls back an attach to a guest that does not exist and leaves nothing behind', async () => {
    const res = await http(base, 'POST', '/guests/volumes', connection(['1a01'], tmpl.id, { assigner_id: 'nobody' }));
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ overallRC: 8, rc: 400, rs: 4 });
    expect(await usage('1a01')).toEqual(['', 0, 0, '']);
    expect((await app.store.list('ZVolume')).items).toEqual([]);
  });

  it('refuses a connector without info.reserve, and bad attach input, with 400 envelopes', async () => {
    expect((await getWithBody(base, '/volumes/conn/vol01', JSON.stringify({ info: {} }))).status).toBe(400);
    expect((await http(base, 'POST', '/guests/volumes', connection(['1a0'], tmpl.id))).status).toBe(400);
    expect((await http(base, 'POST', '/guests/volumes', connection(['1a01'], tmpl.id, { target_lun: '1' }))).status).toBe(400);
  });

  it('reads and sets FCP usage: 4-hex path, 404 for an unknown FCP, and PUT always 200', async () => {
    expect((await http(base, 'GET', '/volumes/fcp/1a0')).status).toBe(400);
    const unknown = await http(base, 'GET', '/volumes/fcp/ffff');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ overallRC: 404, modID: 30, errmsg: "FCP 'ffff' does not exist." });
    const set = await http(base, 'PUT', '/volumes/fcp/1a02', { info: { userid: 'vol01', reserved: 1, connections: 3, fcp_template_id: tmpl.id } });
    expect(set.status).toBe(200);
    expect(await usage('1a02')).toEqual(['VOL01', 1, 3, tmpl.id]);
    const setUnknown = await http(base, 'PUT', '/volumes/fcp/ffff', { info: { reserved: 0, connections: 0 } });
    expect(setUnknown.status).toBe(200);
    expect(setUnknown.body.overallRC).toBe(404);
    expect((await http(base, 'PUT', '/volumes/fcp/1a02', { info: { reserved: 2, connections: 0 } })).status).toBe(400);
    await http(base, 'PUT', '/volumes/fcp/1a02', { info: { userid: null, reserved: 0, connections: 0 } });
  });

  it('refreshes a boot map: usable FCP channels with the WWPNs; missing lun is a 400', async () => {
    const res = await http<Record<string, string[]>>(base, 'PUT', '/volumes/volume_refresh_bootmap', { info: { fcpchannel: ['1a00', '9999'], wwpn: ['0x5005076802100C1B'], lun: '0x0000000000000001' } });
    expect(res.status).toBe(200);
    expect(res.body.output).toEqual({ '1a00': ['5005076802100c1b'] });
    expect((await http(base, 'PUT', '/volumes/volume_refresh_bootmap', { info: { fcpchannel: ['1a00'], wwpn: ['x'] } })).status).toBe(400);
  });

  it('never gives one FCP to two guests reserving at once (each choice is declared under the template\'s resourceVersion)', async () => {
    const created = await http<{ fcp_template: Template }>(base, 'POST', '/volumes/fcptemplates', { name: 'race', fcp_devices: '1a10-1a12' });
    const id = created.body.output.fcp_template.id;
    const guests = ['race1', 'race2', 'race3', 'race4'];
    const answers = await Promise.all(guests.map((g) => getWithBody<Connector>(base, `/volumes/conn/${g}`, JSON.stringify({ info: { reserve: true, fcp_template_id: id } }))));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const got = answers.map((a) => a.body.output.zvm_fcp);
    const taken = got.flat();
    // three FCPs, four guests: each FCP went to exactly one guest, and one guest got none
    expect([...taken].sort()).toEqual(['1a10', '1a11', '1a12']);
    expect(got.filter((f) => f.length === 0)).toHaveLength(1);
    // the ledger (written by the template's reconciler alone) shows each guest's reservation as answered
    for (const [i, fcps] of got.entries()) {
      for (const fcp of fcps) expect(await usage(fcp)).toEqual([guests[i].toUpperCase(), 1, 0, id]);
    }
    const t = await app.store.get<ZFcpTemplate>('ZFcpTemplate', { name: id });
    expect(t?.spec.fcpUsage?.map((u) => u.fcp).sort()).toEqual(['1a10', '1a11', '1a12']);
    for (const g of guests) await getWithBody(base, `/volumes/conn/${g}`, JSON.stringify({ info: { reserve: false, fcp_template_id: id } }));
    expect(await usage('1a11')).toEqual(['', 0, 0, '']);
    expect((await http(base, 'DELETE', `/volumes/fcptemplates/${id}`)).status).toBe(200);
  });

  it('edits a template and deletes it once nothing is allocated', async () => {
    const edit = await http<{ fcp_template: Template }>(base, 'PUT', `/volumes/fcptemplates/${tmpl.id}`, { description: 'edited', fcp_devices: '1a00-1a01;1b00' });
    expect(edit.status).toBe(200);
    expect(edit.body.output.fcp_template).toMatchObject({ id: tmpl.id, name: 'tmpl one', description: 'edited', min_fcp_paths_count: 2 });
    expect((await http(base, 'GET', '/volumes/fcp/1a03')).status).toBe(404);
    expect((await http(base, 'PUT', '/volumes/fcptemplates/nope', { description: 'x' })).status).toBe(404);
    expect((await http(base, 'DELETE', `/volumes/fcptemplates/${tmpl.id}`)).status).toBe(200);
    expect((await http(base, 'DELETE', `/volumes/fcptemplates/${tmpl.id}`)).status).toBe(404);
  });
});
