import { http, standaloneForSuite } from './helpers.js';

const twoDiskGuest = {
  guest: { userid: 'tour01', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }, { size: '100M', format: 'ext3' }] },
};

describe('the README tour over real HTTP against standalone mode', () => {
  const suite = standaloneForSuite();

  it('answers GET / with the version envelope', async () => {
    const res = await http<Record<string, string>>(suite.app.restUrl, 'GET', '/');
    expect(res.status).toBe(200);
    expect(res.body.output).toMatchObject({ api_version: '1.0', version: expect.any(String) });
    expect(res.headers.get('cache-control')).toBe('no-cache');
  });

  it('creates a guest with two disks, lists it, starts, stops and deletes it', async () => {
    const created = await http<Record<string, unknown>[]>(suite.app.restUrl, 'POST', '/guests', twoDiskGuest);
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ overallRC: 0, rc: 0, rs: 0, errmsg: '', modID: null });
    expect(created.body.output).toEqual([
      expect.objectContaining({ vdev: '0100', is_boot_disk: true, format: 'none', disk_pool: expect.stringMatching(/^ECKD:/) }),
      expect.objectContaining({ vdev: '0101', size: '100M', format: 'ext3' }),
    ]);

    const hv = suite.app.hosts.forHost('default')!;
    const onHost = await hv.describeGuest('TOUR01');
    expect(onHost?.directory.disks.map((d) => d.vdev)).toEqual(['0100', '0101']);

    expect((await http(suite.app.restUrl, 'GET', '/guests')).body.output).toContain('TOUR01');

    expect((await http(suite.app.restUrl, 'POST', '/guests/tour01/action', { action: 'start' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'GET', '/guests/tour01/power_state')).body.output).toBe('on');
    expect(await hv.queryPowerState('TOUR01')).toBe('on');

    expect((await http(suite.app.restUrl, 'POST', '/guests/tour01/action', { action: 'stop' })).status).toBe(200);
    expect((await http(suite.app.restUrl, 'GET', '/guests/tour01/power_state_real')).body.output).toBe('off');

    expect((await http(suite.app.restUrl, 'DELETE', '/guests/tour01')).status).toBe(200);
    expect(await hv.describeGuest('TOUR01')).toBeUndefined();
    expect((await http(suite.app.restUrl, 'GET', '/guests')).body.output).not.toContain('TOUR01');
    expect((await http(suite.app.restUrl, 'GET', '/guests/tour01/info')).status).toBe(404);
  });

  it.each([
    ['vcpus 0', { userid: 'bad01', vcpus: 0, memory: 512 }],
    ['vcpus 65', { userid: 'bad02', vcpus: 65, memory: 512 }],
    ['a 9-character userid', { userid: 'abcdefghi', vcpus: 1, memory: 512 }],
    ['a malformed disk size', { userid: 'bad03', vcpus: 1, memory: 512, disk_list: [{ size: '1x' }] }],
  ])('rejects %s with a 400 envelope and changes nothing', async (_label, guest) => {
    const res = await http(suite.app.restUrl, 'POST', '/guests', { guest });
    expect(res.status).toBe(400);
    expect(res.body.overallRC).not.toBe(0);
    expect(res.body.errmsg).not.toBe('');
    const stored = await suite.app.store.list('ZGuest');
    expect(stored.items.map((g) => (g.spec as { userid: string }).userid)).not.toContain(guest.userid.toUpperCase());
    if (guest.userid.length <= 8) expect(await suite.app.hosts.forHost('default')!.describeGuest(guest.userid)).toBeUndefined();
  });

  it('rejects an unknown action with a 400 envelope', async () => {
    await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'act01', vcpus: 1, memory: 512 } });
    const res = await http(suite.app.restUrl, 'POST', '/guests/act01/action', { action: 'dance' });
    expect(res.status).toBe(400);
    expect(res.body.errmsg).toContain('dance');
  });

  it('answers 409 when the userid already exists', async () => {
    await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'dup01', vcpus: 1, memory: 512 } });
    const again = await http(suite.app.restUrl, 'POST', '/guests', { guest: { userid: 'DUP01', vcpus: 2, memory: 512 } });
    expect(again.status).toBe(409);
    expect(again.body.rc).toBe(409);
    const dir = await suite.app.hosts.forHost('default')!.describeGuest('DUP01');
    expect(dir?.directory.cpus).toBe(1);
  });
});
