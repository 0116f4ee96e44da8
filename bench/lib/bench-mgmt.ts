/**
 * The bench host's management guest, wired as standalone mode wires the default host's
 * (src/cmd/simulated-host.ts, src/cmd/standalone.ts): the simulator's SSH endpoint over the same
 * SimHost state as the bench's SMAPI server, reached by the real mgmt adapter on loopback.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { MgmtOps } from '../../src/hypervisor/image-port.js';
import { buildImageHeader, createMgmtOps } from '../../src/hypervisor/mgmt/index.js';
import { startSimSshServer } from '../../src/hypervisor/sim/ssh/index.js';
import type { BenchHost } from './bench-host.js';
import { tempDir } from './operator-world.js';

const USER = 'zcc';

export interface BenchMgmt {
  mgmt: MgmtOps;
  /** writes a small image (header + 100 kB) on the operator's side and returns its file:// URL */
  imageUrl(name: string): string;
  /**
   * writes a file in the operator's image directories, where REST `PUT /files` puts uploads and the
   * only local place a deploy's transportFiles may come from; returns its absolute path
   */
  putFile(name: string, bytes: Buffer): string;
  close(): Promise<void>;
}

export async function startBenchMgmt(host: BenchHost): Promise<BenchMgmt> {
  const dir = tempDir('mgmt');
  const files = join(dir, 'files');
  mkdirSync(files, { recursive: true });
  const password = randomBytes(12).toString('hex');
  const ssh = await startSimSshServer({ sim: host.sim, dataDir: join(dir, 'mgmt'), username: USER, password });
  const mgmt = createMgmtOps({ endpoint: { host: '127.0.0.1', port: ssh.port, username: USER, password, hostKeySha256: ssh.hostKeySha256 }, allowedDirs: [files] });
  return {
    mgmt,
    imageUrl(name) {
      const image = join(files, `${name}.img`);
      writeFileSync(image, Buffer.concat([buildImageHeader({ diskType: 'CKD', diskSizeUnits: '100:CYL', compressLevel: 0 }), Buffer.alloc(100_000, 5)]));
      return `file://${image}`;
    },
    putFile(name, bytes) {
      const local = join(files, name);
      mkdirSync(dirname(local), { recursive: true });
      writeFileSync(local, bytes);
      return local;
    },
    async close() {
      // the adapter is closed with the host registry that holds it; closing twice is harmless
      await mgmt.close();
      await ssh.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
