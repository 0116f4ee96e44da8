/** SMAPI's TLS request server: the same frames inside TLS, client and server over loopback. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HypervisorError } from '../../src/errors.js';
import { createSimHost } from '../../src/hypervisor/sim/index.js';
import { createSmapiClient, createSmapiServer, type SmapiServer } from '../../src/hypervisor/smapi/index.js';

const auth = { userid: 'MAINT', password: 'TLSPASS' };
const dir = mkdtempSync(join(tmpdir(), 'zvm-smapi-tls-'));
let cert: Buffer;
let server: SmapiServer;

beforeAll(async () => {
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
    '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
  ], { stdio: 'ignore' });
  cert = readFileSync(join(dir, 'cert.pem'));
  server = await createSmapiServer({ handler: createSimHost(), auth, port: 0, tls: { key: readFileSync(join(dir, 'key.pem')), cert } });
});

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SMAPI over TLS', () => {
  it('runs calls through a TLS connection that verifies the server certificate', async () => {
    const client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, tls: { ca: cert }, timeoutMs: 5000 });
    const records = ['USER TLS01 LBYONLY 1G 2G G', 'INCLUDE OSDFLT'];
    expect((await client.call('Image_Create_DM', 'TLS01', { image_record_array: records })).rc).toBe(0);
    const query = await client.call('Image_Query_DM', 'TLS01');
    expect(query.rc).toBe(0);
    expect((query.output.image_record_array as string[])[0]).toMatch(/^USER TLS01 /);
    await client.close();
  });

  it('refuses a server whose certificate it does not trust', async () => {
    const client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, tls: true, timeoutMs: 5000, retries: 0 });
    await expect(client.call('Image_Status_Query', '*')).rejects.toBeInstanceOf(HypervisorError);
    await client.close();
  });
});
