/**
 * Transfer progress of an image deploy (ZGuest status.progress, written by the guest controller) and
 * of an image export (ZImage status.progress, from the annotation the REST process writes), in standalone mode: REST
 * over real HTTP, the simulator over SMAPI TCP, the mgmt adapter over SSH against the simulator's
 * endpoint. Every progress write is counted through a store watch; the throttle is checked on the
 * samples' own stamps, never on the wall clock.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Resource, ZGuest, ZImage } from '../../../src/api/index.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { PROGRESS_WRITE_INTERVAL_MS, type TransferStatus } from '../../../src/controllers/kit/transfer-progress.js';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { http, startTestStandalone, tempStateDir, waitFor } from './helpers.js';

const tmp = tempStateDir();
const files = join(tmp.dir, 'files');
let app: Standalone;
/** larger than three of the adapter's 4 MiB progress steps: the copy reports several samples */
const DATA_BYTES = 13 * 1024 * 1024;
const IMAGE_BYTES = 512 + DATA_BYTES;
const call = <T = unknown>(method: string, path: string, body?: unknown) => http<T>(app.restUrl, method, path, body);

interface ProgressLog {
  /** each progress value the object's status took, in order (one per write: samples differ in updatedAt) */
  writes: TransferStatus[];
  stop(): void;
}

/** Watches a kind from now on and records every new status.progress of one object. */
async function recordProgress(kind: string, name: string): Promise<ProgressLog> {
  const { resourceVersion, items } = await app.store.list(kind);
  const controller = new AbortController();
  const writes: TransferStatus[] = [];
  // what status shows before (an earlier transfer's last sample) is not one of this transfer's writes
  const before = (items.find((o) => o.metadata.name === name)?.status as { progress?: TransferStatus } | undefined)?.progress?.updatedAt;
  void (async () => {
    for await (const ev of app.store.watch<Resource>(kind, { resourceVersion, signal: controller.signal })) {
      if (ev.object.metadata.name !== name) continue;
      const p = (ev.object.status as { progress?: TransferStatus } | undefined)?.progress;
      if (p && p.updatedAt !== before && p.updatedAt !== writes.at(-1)?.updatedAt) writes.push(p);
    }
  })().catch(() => undefined);
  return { writes, stop: () => controller.abort() };
}

/** At most one write per interval, the last one (the flush at the end) excepted; pinned on the samples' stamps. */
function expectThrottled(writes: TransferStatus[]): void {
  const at = writes.map((w) => Date.parse(w.updatedAt));
  for (let i = 1; i < at.length - 1; i++) expect(at[i]! - at[i - 1]!).toBeGreaterThanOrEqual(PROGRESS_WRITE_INTERVAL_MS);
  expect(writes.length).toBeLessThanOrEqual(2 + Math.floor((at.at(-1)! - at[0]!) / PROGRESS_WRITE_INTERVAL_MS));
}

beforeAll(async () => {
  app = await startTestStandalone(tmp.dir, { smapiTcp: true });
  mkdirSync(files, { recursive: true });
  writeFileSync(join(files, 'big.img'), Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(DATA_BYTES, 7)]));
  const imported = await call('POST', '/images', { image: { image_name: 'big', url: `file://${files}/big.img`, image_meta: { os_version: 'rhel8.6' } } });
  expect(imported.status).toBe(200);
  const guest = await call('POST', '/guests', { guest: { userid: 'linux02', vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } });
  expect(guest.status).toBe(200);
}, 60_000);

afterAll(async () => {
  await app.stop();
  tmp.cleanup();
});

describe('transfer progress', () => {
  it('the import left its own progress on the ZImage, named as an import', async () => {
    const image = (await app.store.list<ZImage>('ZImage')).items.find((i) => i.spec.imageName === 'big');
    expect(image?.status?.progress).toMatchObject({ operation: 'import', bytesDone: IMAGE_BYTES, bytesTotal: IMAGE_BYTES, summary: expect.stringMatching(/^import: /) });
  });

  it('a deploy writes the guest status.progress, throttled, and the guest still settles with the image recorded', async () => {
    const log = await recordProgress('ZGuest', 'linux02');
    const res = await call('POST', '/guests/linux02/action', { action: 'deploy', image: 'big' });
    expect(res.status).toBe(200);
    const guest = await waitFor(async () => {
      const g = await app.store.get<ZGuest>('ZGuest', { namespace: 'default', name: 'linux02' });
      return g?.status?.deployedImage === 'big' && g.status.progress?.bytesDone === IMAGE_BYTES ? g : undefined;
    });
    log.stop();
    // the final status write went onto the object the progress writes had moved on: nothing lost
    expect(guest.status?.conditions?.find((c) => c.type === 'ImageDeployed')?.status).toBe('True');
    expect(guest.status?.progress).toMatchObject({ operation: 'deploy', bytesDone: IMAGE_BYTES, bytesTotal: IMAGE_BYTES, summary: expect.stringMatching(/^deploy: .* \(100%\)/) });
    expect(log.writes.length).toBeGreaterThanOrEqual(1);
    expect(log.writes.some((w) => w.operation === 'deploy' && w.bytesDone > 0)).toBe(true);
    expectThrottled(log.writes);
  });

  it('an export through REST writes the ZImage status.progress, throttled, and the admin API (zvm-operator get) shows it', async () => {
    const image = (await app.store.list<ZImage>('ZImage')).items.find((i) => i.spec.imageName === 'big')!;
    const log = await recordProgress('ZImage', image.metadata.name);
    const out = await call('PUT', '/images/big', { location: { dest_url: `file://${files}/out.img` } });
    expect(out.status).toBe(200);
    const last = await waitFor(async () => (log.writes.at(-1)?.bytesDone === IMAGE_BYTES ? log.writes.at(-1) : undefined));
    log.stop();
    expect(last).toMatchObject({ operation: 'export', bytesTotal: IMAGE_BYTES, summary: expect.stringMatching(/^export: .* \(100%\) at .+\/s$/) });
    expect(log.writes.every((w) => w.operation === 'export' && w.bytesDone > 0)).toBe(true);
    expectThrottled(log.writes);
    // the image stays Ready: its reconciler copied each sample REST put on the annotation into status.progress
    const after = await app.store.get<ZImage>('ZImage', { name: image.metadata.name });
    expect(after?.status).toMatchObject({ phase: 'Ready', progress: last });
    // `zvm-operator get zimages -w` reads the admin API and prints the PROGRESS column (.status.progress.summary)
    const viaAdmin = (await http<never>(app.adminUrl, 'GET', `/resources/zimages/${image.metadata.name}`)).body as unknown as ZImage;
    expect(viaAdmin.status?.progress?.summary).toBe(last.summary);
  });
});
