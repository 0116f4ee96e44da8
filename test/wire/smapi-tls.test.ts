/** SMAPI's TLS request server: the same frames inside TLS, client and server over loopback. */
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
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

  it('accepts a self-signed server by its pinned certificate fingerprint, in any of the usual spellings', async () => {
    const fp = new X509Certificate(cert).fingerprint256; // AA:BB:...
    const spellings = [fp, fp.replace(/:/g, '').toLowerCase(), `SHA256:${Buffer.from(fp.replace(/:/g, ''), 'hex').toString('base64').replace(/=+$/, '')}`];
    for (const tlsCertSha256 of spellings) {
      const client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, tls: true, tlsCertSha256, timeoutMs: 5000, retries: 0 });
      expect((await client.call('Image_Query_DM', 'TLS01')).rc).toBe(0);
      await client.close();
    }
  });

  it('refuses a server whose certificate is not the pinned one, even when a CA vouches for it', async () => {
    const client = createSmapiClient({ host: '127.0.0.1', port: server.port, auth, tls: { ca: cert }, tlsCertSha256: 'AB'.repeat(32), timeoutMs: 5000, retries: 0 });
    await expect(client.call('Image_Query_DM', 'TLS01')).rejects.toThrow(/is not the pinned AB:AB/);
    await client.close();
  });
});
