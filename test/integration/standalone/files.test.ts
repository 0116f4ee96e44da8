/**
 * PUT /files and POST /files over real HTTP in standalone mode: the reference client's captured
 * requests (test/fixtures/rest-client-captures, file_import and file_export) are replayed byte for
 * byte, uploads land in <image dir>/imported/ with the reference's answer, and paths outside the
 * configured directories or through symlinks are refused with a 400 envelope, nothing written.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { REST_CLIENT_CAPTURES as CAPTURES } from '../../fixtures/paths.js';
import type { Standalone } from '../../../src/cmd/standalone.js';
import { http, startTestStandalone, tempStateDir } from './helpers.js';

const tmp = tempStateDir();
const images = join(tmp.dir, 'images');
const other = join(tmp.dir, 'other');
const outside = join(tmp.dir, 'outside');
let app: Standalone;

interface Capture {
  headers: [string, string][];
  method: string;
  path: string;
  body_b64: string;
  local_file_b64?: string;
  body_decoded_b64?: string;
}

const capture = (name: string) => JSON.parse(readFileSync(join(CAPTURES, name), 'utf8')) as Capture;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('hex');
const imported = () => (existsSync(join(images, 'imported')) ? readdirSync(join(images, 'imported')) : []);

/** Sends the capture's exact bytes (Host port substituted) and reads the whole answer. */
function replay(c: Capture, body = Buffer.from(c.body_b64, 'base64')): Promise<{ status: number; head: string; body: Buffer }> {
  const port = new URL(app.restUrl).port;
  const head = [`${c.method} ${c.path} HTTP/1.1`, ...c.headers.map(([k, v]) => `${k}: ${v.replace('{port}', port)}`.replace('Connection: keep-alive', 'Connection: close'))].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const headText = all.subarray(0, split).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d+)/.exec(headText)?.[1]), head: headText, body: all.subarray(split + 4) });
    });
    socket.write(Buffer.concat([Buffer.from(`${head}\r\n\r\n`, 'latin1'), body]));
  });
}

function dechunk(body: Buffer, head: string): Buffer {
  if (!/transfer-encoding: chunked/i.test(head)) return body;
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
    if (!size) return Buffer.concat(out);
    out.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

beforeAll(async () => {
  for (const d of [images, other, outside]) mkdirSync(d, { recursive: true });
  app = await startTestStandalone(tmp.dir, { imageDirs: [images, other], maxUploadBytes: 1000 });
}, 30_000);

afterAll(async () => {
  await app.stop();
  tmp.cleanup();
});

describe('PUT /files (file_import)', () => {
  it.each(['none__file_import__default.json', 'none__file_import__binary.json', 'none__file_import__empty-file.json'])(
    'stores the body of %s in imported/ and answers size, file URL and md5 as the reference', async (name) => {
      const c = capture(name);
      const content = Buffer.from(c.local_file_b64 ?? '', 'base64');
      const res = await replay(c);
      expect(res.status).toBe(200);
      const body = JSON.parse(res.body.toString('utf8'));
      expect(body).toEqual({
        overallRC: 0, modID: null, rc: 0, rs: 0, errmsg: '',
        output: { filesize_in_bytes: content.length, dest_url: expect.stringMatching(new RegExp(`^file://${images}/imported/[0-9a-f-]{36}$`)), md5sum: md5(content) },
      });
      expect(Object.keys(body.output)).toEqual(['filesize_in_bytes', 'dest_url', 'md5sum']);
      expect(readFileSync(body.output.dest_url.slice('file://'.length))).toEqual(content);
    });

  it('refuses a body over the size cap with a 400 envelope and keeps no partial file', async () => {
    const before = imported();
    const declared = await http(app.restUrl, 'PUT', '/files', 'x'.repeat(1001), { 'content-type': 'application/octet-stream' });
    expect(declared.status).toBe(400);
    expect(declared.body).toMatchObject({ overallRC: 100, rs: 3, errmsg: expect.stringContaining('limit of 1000 bytes') });
    // chunked: the size is only known while streaming
    const c = capture('none__file_import__empty-file.json');
    const big = Buffer.alloc(1500, 7);
    const chunked = await replay(c, Buffer.concat([Buffer.from(`${big.length.toString(16)}\r\n`), big, Buffer.from('\r\n0\r\n\r\n')]));
    expect(chunked.status).toBe(400);
    expect(imported()).toEqual(before);
  });
});

describe('POST /files (file_export)', () => {
  it('answers the bytes of a file inside an image directory as application/octet-stream', async () => {
    const content = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    mkdirSync(join(other, '0c6c8e12'), { recursive: true });
    writeFileSync(join(other, '0c6c8e12/cfgdrive.tgz'), content);
    const c = capture('none__file_export__default.json');
    const body = Buffer.from(JSON.stringify({ source_file: join(other, '0c6c8e12/cfgdrive.tgz') }));
    const res = await replay({ ...c, headers: c.headers.map(([k, v]) => [k, k === 'Content-Length' ? String(body.length) : v]) }, body);
    expect(res.status).toBe(200);
    expect(res.head).toMatch(/content-type: application\/octet-stream/i);
    expect(dechunk(res.body, res.head)).toEqual(content);
  });

  it('answers the captured request (a path outside the configured directories) with a 400 envelope', async () => {
    const res = await replay(capture('none__file_export__default.json'));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({ overallRC: 100, rs: 3, errmsg: expect.stringContaining('outside the allowed directories'), output: '' });
  });

  it('answers a missing file inside the directories with the reference text and a 404', async () => {
    const res = await http(app.restUrl, 'POST', '/files', { source_file: join(images, 'nosuch') });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ overallRC: 404, modID: 60, rc: 404, rs: 2, errmsg: `The specific file ${join(images, 'nosuch')} for export does not exist`, output: '' });
  });

  it.each([
    ['a file outside', () => { writeFileSync(join(outside, 'secret'), 'secret'); return join(outside, 'secret'); }],
    ['.. out of the directory', () => `${images}/../outside/secret`],
    ['a symlink to a file outside', () => { symlinkSync(join(outside, 'secret'), join(images, 'link')); return join(images, 'link'); }],
    ['a path through a symlinked directory', () => { symlinkSync(outside, join(images, 'dirlink')); return join(images, 'dirlink/secret'); }],
    ['a relative path', () => 'secret'],
  ])('refuses %s with a 400 envelope', async (_what, make) => {
    const res = await http(app.restUrl, 'POST', '/files', { source_file: make() });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ overallRC: 100, modID: 400, rs: 3, output: '' });
  });

  it('answers a body that is not JSON or lacks source_file with a 400 envelope', async () => {
    expect((await http(app.restUrl, 'POST', '/files', '{nope')).status).toBe(400);
    expect((await http(app.restUrl, 'POST', '/files', {})).status).toBe(400);
  });
});
