/**
 * `migrate feilong` on the sample databases that feilong's own database layer wrote
 * (test/fixtures/feilong-databases): nothing in them is modified; every guest, image, template and FCP
 * device appears in the output (as a resource or as an unmapped line with its reason); --apply to a
 * standalone state directory adopts the guests the simulated host has, is a no-op the second time,
 * resumes a half-done run, and never overwrites what exists.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { API_VERSION, validateResource, type ZFcpTemplate, type ZGuest, type ZImage } from '../../../src/api/index.js';
import { migrateFeilong, type MigrateOptions } from '../../../src/cmd/migrate.js';
import { silentLogger } from '../../../src/log.js';
import { STATUS_WRITTEN } from '../../../src/migrate/apply.js';
import { openStateStore } from '../../../src/cmd/state-store.js';
import { zvmArgs } from '../../builders/zvm.js';
import { tempStateDir } from '../standalone/helpers.js';
import { guestsOnHost, SAMPLE_DB_DIR, sampleRows, seedSampleHost } from './seed-host.js';

/** seeding 40 guests and two full runs on a shared 2-core machine */
const TIMEOUT = 180_000;

const FILES = ['sdk_guest.sqlite', 'sdk_network.sqlite', 'sdk_image.sqlite', 'sdk_fcp.sqlite'];
const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const digests = () => FILES.map((f) => digest(join(SAMPLE_DB_DIR, f)));

const base = (extra: Partial<MigrateOptions>): MigrateOptions => ({
  dbDir: SAMPLE_DB_DIR, host: 'default', namespace: 'default', imageRepository: '/var/lib/zvmsdk/images', rootVdev: '0100', ...extra,
});
const run = (extra: Partial<MigrateOptions>) => migrateFeilong(base(extra), silentLogger());

const allGuests = () => sampleRows('sdk_guest.sqlite', 'SELECT userid FROM guests').map((r) => String(r.userid));
const allImages = () => sampleRows('sdk_image.sqlite', 'SELECT imagename FROM image').map((r) => String(r.imagename));
const allFcps = () => [...new Set(sampleRows('sdk_fcp.sqlite', 'SELECT fcp_id FROM fcp UNION SELECT fcp_id FROM template_fcp_mapping').map((r) => String(r.fcp_id)))];

async function storeObjects(dir: string) {
  const store = openStateStore(dir);
  try {
    return {
      guests: (await store.list<ZGuest>('ZGuest')).items,
      images: (await store.list<ZImage>('ZImage')).items,
      templates: (await store.list<ZFcpTemplate>('ZFcpTemplate')).items,
    };
  } finally {
    await store.close();
  }
}

describe('migrate feilong (sample databases)', () => {
  it('dry run without a host: reads without modifying, lists every row, writes one valid manifest per resource', async () => {
    const before = digests();
    const { dir, cleanup } = tempStateDir();
    try {
      const out = join(dir, 'out');
      const result = await run({ output: out });
      expect(digests()).toEqual(before);
      for (const g of allGuests()) expect(result.summary).toContain(`sdk_guest.sqlite guests ${g}: `);
      for (const i of allImages()) expect(result.summary).toMatch(new RegExp(`create ZImage ${i.toLowerCase().replace(/\./g, '\\.')} `));
      for (const f of allFcps()) expect(result.summary).toMatch(new RegExp(`^  ${f}: `, 'm'));
      expect(result.summary).toMatch(/^ {2}1f00: not migrated/m);
      expect(result.summary).toMatch(/sdk_fcp\.sqlite fcp 1f00: in no template/);
      // no guest without the live directory: its sizes would be guesses, and adopting would resize it
      expect(result.summary).toMatch(/guests LNX00001: vcpus, memory and power state come from the z\/VM directory/);
      const files = readdirSync(out, { recursive: true }).map(String).filter((f) => f.endsWith('.yaml'));
      expect(files.length).toBe(6 + 3);
      for (const f of files) validateResource(parse(readFileSync(join(out, f), 'utf8')));
      expect(existsSync(join(out, 'summary.txt'))).toBe(true);
      expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')).unmapped.length).toBeGreaterThan(0);
    } finally {
      cleanup();
    }
  }, TIMEOUT);

  it('--apply adopts the guests of the host, carries images and the FCP ledger, and a second run is a no-op', async () => {
    const before = digests();
    const { dir, cleanup } = tempStateDir();
    try {
      await seedSampleHost(join(dir, 'sim.json'));
      const first = await run({ stateDir: dir, apply: true });
      expect(first.exitCode).toBe(0);
      const { guests, images, templates } = await storeObjects(dir);
      expect(guests.map((g) => g.spec.userid).sort()).toEqual(guestsOnHost().sort());
      for (const g of guests) expect(g.spec).toMatchObject({ adopt: true, vcpus: 2, maxCpus: 4, memory: '2G', maxMemory: '8G', powerState: expect.any(String) });
      expect(guests.find((g) => g.spec.userid === 'LNX00005')?.spec.nics).toEqual([
        { vdev: '1000', vswitch: 'VSWPROD1', nicId: '51dd5e7a-cc7d-4c00-b0bc-270aa017ad15' },
        { vdev: '1003', vswitch: 'VSWDEV01', nicId: '2934fbb7-c14e-4424-a641-a92e637f4d1d' },
      ]);
      expect(guests.find((g) => g.spec.userid === 'LNX00008')?.spec.nics?.[0]).toEqual({ vdev: '1000', nicId: '1fd066c2-7943-40c5-9163-28f5d9588a8d' });
      expect(images.map((i) => i.spec.imageName).sort()).toEqual(allImages().sort());
      const rhcos = images.find((i) => i.spec.imageName?.startsWith('rhcos4.12-s390x-scsi'));
      expect(rhcos?.status).toMatchObject({ phase: 'Ready', diskSizeUnits: '5280:CYL', imageSizeInBytes: 3892314112, comments: "{'disk_type': 'SCSI'}" });
      expect(rhcos?.spec.source.import).toMatchObject({ osVersion: 'rhcos4.12', diskType: 'SCSI' });
      const general = templates.find((t) => t.spec.name === 'general-2path');
      expect(general?.spec).toMatchObject({ fcpDevices: '1a00-1a07;1b00-1b07', hostDefault: true, storageProviders: ['v7k60'] });
      expect(general?.spec.minFcpPathsCount).toBeUndefined();
      expect(general?.status?.fcps?.find((r) => r.fcp === '1a04')).toMatchObject({ assignerId: 'LNX00006', reserved: 0, connections: 0, state: 'free', templateId: '' });
      const db2 = templates.find((t) => t.spec.name === 'db2-3path');
      expect(db2?.spec).toMatchObject({ fcpDevices: '1a06-1a07;1b06-1b07;1e00-1e01', minFcpPathsCount: 2, hostDefault: false });
      expect(db2?.status?.fcps?.find((r) => r.fcp === '1a06')).toMatchObject({ assignerId: 'LNX00024', reserved: 1, connections: 1, templateId: '49f5cdfc-c272-11ed-ab41-020000a1c3e5' });
      expect(db2?.status?.fcps?.find((r) => r.fcp === '1e01')).toMatchObject({ state: 'notfound', reserved: 0, connections: 0 });
      for (const o of [...images, ...templates]) expect(o.metadata.annotations?.[STATUS_WRITTEN]).toBe('true');

      const versions = (o: Awaited<ReturnType<typeof storeObjects>>) => [...o.guests, ...o.images, ...o.templates].map((x) => `${x.kind}/${x.metadata.name}@${x.metadata.resourceVersion}`).sort();
      const before2 = versions({ guests, images, templates });
      const second = await run({ stateDir: dir, apply: true });
      expect(second.exitCode).toBe(0);
      expect(second.summary).not.toMatch(/^ {2}(create|resume|CONFLICT) /m);
      expect(second.summary.match(/^ {2}unchanged /gm)?.length).toBe(guests.length + images.length + templates.length);
      // nothing was written: every object keeps its resourceVersion
      expect(versions(await storeObjects(dir))).toEqual(before2);
      expect(digests()).toEqual(before);
    } finally {
      cleanup();
    }
  }, TIMEOUT);

  it('resumes a run that stopped before a ledger was written, and never overwrites what exists', async () => {
    const { dir, cleanup } = tempStateDir();
    try {
      await seedSampleHost(join(dir, 'sim.json'));
      const out = join(dir, 'out');
      await run({ output: out });
      const store = openStateStore(dir);
      // a crash after the create: the template is there without its ledger
      const manifest = parse(readFileSync(join(out, 'zfcptemplates', '33a0d0c8-c25b-11ed-ab41-020000a1c3e5.yaml'), 'utf8')) as ZFcpTemplate;
      await store.create({ ...manifest, status: undefined });
      // someone else's guest already manages LNX00001
      await store.create<ZGuest>({ apiVersion: API_VERSION, kind: 'ZGuest', metadata: { name: 'web', namespace: 'default' }, spec: { userid: 'LNX00001', vcpus: 1, memory: '1G', adopt: true } });
      await store.close();

      const result = await run({ stateDir: dir, apply: true });
      expect(result.exitCode).toBe(1);
      expect(result.summary).toContain('resume (write status) ZFcpTemplate 33a0d0c8-c25b-11ed-ab41-020000a1c3e5');
      expect(result.summary).toMatch(/CONFLICT ZGuest default\/lnx00001 .*userid LNX00001 is already managed by ZGuest default\/web/);
      const { guests, templates } = await storeObjects(dir);
      expect(guests.find((g) => g.metadata.name === 'web')?.spec).toEqual({ userid: 'LNX00001', vcpus: 1, memory: '1G', adopt: true });
      expect(guests.some((g) => g.metadata.name === 'lnx00001')).toBe(false);
      const general = templates.find((t) => t.spec.name === 'general-2path');
      expect(general?.status?.fcps?.find((r) => r.fcp === '1a00')).toMatchObject({ assignerId: 'LNX00004', reserved: 1, connections: 2 });
    } finally {
      cleanup();
    }
  }, TIMEOUT);
  it('is a subcommand of the binary: manifests and summary from the command line, bad flags refused', () => {
    const { dir, cleanup } = tempStateDir();
    try {
      const cli = (...args: string[]) => spawnSync(process.execPath, zvmArgs(['migrate', 'feilong', ...args]), { encoding: 'utf8', timeout: 120_000 });
      const ok = cli('--db-dir', SAMPLE_DB_DIR, '-o', join(dir, 'out'));
      expect([ok.status, ok.stderr]).toEqual([0, '']);
      expect(ok.stdout).toMatch(/^feilong migration of .* \(dry run: nothing written to a store\)/);
      expect(readFileSync(join(dir, 'out', 'summary.txt'), 'utf8')).toBe(ok.stdout);
      const bad = cli('--db-dir', SAMPLE_DB_DIR, '--apply');
      expect(bad.status).toBe(1);
      expect(bad.stderr).toContain('--apply needs --state-dir (standalone, stopped) or --kubeconfig');
    } finally {
      cleanup();
    }
  }, TIMEOUT);
});
