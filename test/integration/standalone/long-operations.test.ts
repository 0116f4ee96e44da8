/**
 * Long REST operations answer their real outcome (src/rest/README.md "Long operations"): standalone as
 * the real process (`zvm-operator standalone`, its own flags), an image imported over http from a
 * source on loopback that the test holds open. The import lasts as long as the test wants, so no
 * assertion depends on a timing: while it runs, a second import of the name and a DELETE answer 409 at
 * once and GET lists it in progress; once released, the held call answers 200. With a short
 * --operation-timeout the call answers 202 "still running" instead, and the import still completes.
 * With --max-concurrent-deploy-capture 1, of two deploys sent together exactly one is refused with the
 * reference's 503 (each SMAPI call of the simulator takes --sim-latency-ms, so a deploy holds its slot
 * for many of them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { buildImageHeader } from '../../../src/hypervisor/mgmt/index.js';
import { waitUntil } from '../../kube/processes.js';
import { START_BOUND_MS, startOperator, stopGracefully, type Operator } from './crash-storm-support.js';
import { http, tempStateDir } from './helpers.js';

const DATA_BYTES = 2 * 1024 * 1024;
const HEADER = buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 });

/** An http image source that sends the header and half the data, then holds the rest until released. */
interface HeldSource {
  url(name: string): string;
  /** resolves once a download has begun (the import is under way) */
  started(): Promise<void>;
  release(): void;
  close(): Promise<void>;
}

async function heldSource(): Promise<HeldSource> {
  let begun!: () => void;
  const begin = new Promise<void>((resolve) => (begun = resolve));
  let released!: () => void;
  const release = new Promise<void>((resolve) => (released = resolve));
  const open = new Set<ServerResponse>();
  const server: Server = createServer((_req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(HEADER.length + DATA_BYTES) });
    res.write(Buffer.concat([HEADER, Buffer.alloc(DATA_BYTES / 2, 7)]), () => begun());
    void release.then(() => res.end(Buffer.alloc(DATA_BYTES / 2, 7)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (name) => `http://127.0.0.1:${port}/${name}.img`,
    started: () => begin,
    release: () => released(),
    close: () => {
      for (const res of open) res.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The real process with these flags and a held source, for one describe block. */
function operatorForSuite(args: string[]): { readonly op: Operator; readonly source: HeldSource } {
  const state = tempStateDir();
  let op: Operator | undefined;
  let source: HeldSource | undefined;
  beforeAll(async () => {
    op = await startOperator(join(state.dir, 'run'), args);
    source = await heldSource();
  }, START_BOUND_MS);
  afterAll(async () => {
    source?.release();
    await source?.close();
    if (op) await stopGracefully(op.proc);
    state.cleanup();
  });
  return { get op() { return op!; }, get source() { return source!; } };
}

const importBody = (name: string, url: string) => ({ image: { image_name: name, url, image_meta: { os_version: 'rhel8.6' } } });

interface ImageInfo { imagename: string; comments: string | null; disk_size_units: string }

async function listed(op: Operator, name: string) {
  return http<ImageInfo[]>(op.restUrl, 'GET', `/images?imagename=${name}`);
}

async function untilReady(op: Operator, name: string): Promise<void> {
  await waitUntil(async () => (await listed(op, name)).body.output?.[0]?.disk_size_units === '100:CYL', {
    what: `image ${name} ready`, timeoutMs: 60_000, watch: [op.proc], intervalMs: 200,
  });
}

describe('a long import, held by its source (default --operation-timeout)', () => {
  const suite = operatorForSuite([]);

  it('answers 200 when it completes; meanwhile GET shows it in progress, a second import and a DELETE answer 409 at once', async () => {
    const first = http(suite.op.restUrl, 'POST', '/images', importBody('held', suite.source.url('held')));
    await suite.source.started();

    const during = await listed(suite.op, 'held');
    expect(during.status).toBe(200);
    expect(during.body.output).toEqual([expect.objectContaining({ imagename: 'held', disk_size_units: '', comments: expect.stringMatching(/^import in progress/) })]);

    const again = await http(suite.op.restUrl, 'POST', '/images', importBody('held', suite.source.url('held')));
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ overallRC: 409, modID: 40, rc: 409, rs: 1 });
    expect(again.body.errmsg).toMatch(/^Image held is being imported and cannot be imported again until that ends; GET \/images\?imagename=held shows its progress$/);

    const deleted = await http(suite.op.restUrl, 'DELETE', '/images/held');
    expect(deleted.status).toBe(409);
    expect(deleted.body.errmsg).toMatch(/^Image held is being imported and cannot be deleted until that ends/);

    suite.source.release();
    const answer = await first;
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ overallRC: 0, rc: 0, rs: 0 });
    const after = await listed(suite.op, 'held');
    expect(after.body.output).toEqual([expect.objectContaining({ imagename: 'held', disk_size_units: '100:CYL' })]);
    // settled now: a DELETE goes through
    expect((await http(suite.op.restUrl, 'DELETE', '/images/held')).status).toBe(200);
  });
});

describe('an import that outlives --operation-timeout', () => {
  const suite = operatorForSuite(['--operation-timeout', '1s']);

  it('answers 202 "still running" with where to see it, and the import completes in the background', async () => {
    const res = await http(suite.op.restUrl, 'POST', '/images', importBody('late', suite.source.url('late')));
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ overallRC: 202, modID: 120, rc: 202, rs: 1, output: '' });
    expect(res.body.errmsg).toBe(
      "Still running after 1 s: image 'late' to be imported. The request was accepted and goes on in the background; GET /images?imagename=late shows how it ends.",
    );
    await suite.source.started(); // the controller is importing it: listed as in progress
    const during = await listed(suite.op, 'late');
    expect(during.status).toBe(200);
    expect(during.body.output?.[0]?.comments).toMatch(/^import in progress/);

    suite.source.release();
    await untilReady(suite.op, 'late');
  });
});

describe('deploys beyond --max-concurrent-deploy-capture', () => {
  const state = tempStateDir();
  const dir = join(state.dir, 'run');
  let op: Operator;

  beforeAll(async () => {
    op = await startOperator(dir, ['--max-concurrent-deploy-capture', '1', '--sim-latency-ms', '300']);
    mkdirSync(join(dir, 'files'), { recursive: true });
    writeFileSync(join(dir, 'files', 'small.img'), Buffer.concat([HEADER, Buffer.alloc(64 * 1024, 7)]));
    const imported = await http(op.restUrl, 'POST', '/images', importBody('small', `file://${join(dir, 'files', 'small.img')}`));
    expect(imported.status).toBe(200);
    for (const userid of ['dep1', 'dep2']) {
      const created = await http(op.restUrl, 'POST', '/guests', { guest: { userid, vcpus: 1, memory: 1024, disk_list: [{ size: '1g', is_boot_disk: true }] } });
      expect(created.status).toBe(200);
    }
  }, START_BOUND_MS);

  afterAll(async () => {
    await stopGracefully(op.proc);
    state.cleanup();
  });

  it('answers the one over the limit 503 with the reference envelope, at once, and runs the other', async () => {
    const answers = await Promise.all(['dep1', 'dep2'].map((u) => http(op.restUrl, 'POST', `/guests/${u}/action`, { action: 'deploy', image: 'small' })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 503]);
    const refused = answers.find((a) => a.status === 503)!;
    expect(refused.body).toMatchObject({ overallRC: 503, modID: 120, rc: 503, rs: 1, output: '' });
    expect(refused.body.errmsg).toMatch(/^Max concurrent deploy\/capture requests received, request is rejected\. action: 'deploy', userid: dep[12],transportfiles: None, remotehost: None,vdev: None, skipdiskcopy: False$/);
  });
});
