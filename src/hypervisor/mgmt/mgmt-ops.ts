/**
 * The `mgmt` capability over SSH (ssh2): CP commands through vmcp and image work in the
 * repository of the management guest. Commands it runs there (arguments single-quoted):
 *
 *   vmcp <CP command words>                                   CP response; exit 1 + stderr on a CP error
 *   md5sum <file>                                             "<32 hex>  <file>"
 *   <zthinBin>/unpackdiskimage <USERID> <vdev> <image file>   exit 0, or ERROR lines and non-zero
 *   <zthinBin>/creatediskimage <USERID> <vdev> <image file> --compression <n>
 *   vmur punch -r -u <USERID> -N <name> <file>                punches a file to the guest's reader
 *   vmcp spool reader class * ; vmur list ; vmur re -t -O <id>  console files in our reader (console.ts)
 *
 * Files move through SFTP (never through a shell); see image-header.ts for the header it reads.
 */
import type { Registry } from 'prom-client';
import type { Logger } from '../../log.js';
import { silentLogger } from '../../log.js';
import { GuestImageRs, ImageError, type MgmtOps } from '../image-port.js';
import { CONSOLE_LOG_DIR, createConsoleForget, createConsoleReader } from './console.js';
import { createMgmtContext, type RemoteHostAuth } from './context.js';
import { punchGrowRootScript } from './grow-root.js';
import { punchToReader } from './punch.js';
import { captureImage, deployImage } from './image-deploy.js';
import { exportImage, importImage } from './image-transfer.js';
import { transferCounter } from './metrics.js';
import { checkAbsolutePath, checkImageName } from './paths.js';
import { createRepository } from './repository.js';
import { createSshConnection, type SshEndpoint } from './ssh-connection.js';
import type { HttpSourcePolicy } from './transfer.js';

export interface MgmtConfig {
  endpoint: SshEndpoint;
  /** absolute path of the image repository on the management guest */
  repository?: string;
  /** where zthin's unpackdiskimage/creatediskimage live on the management guest */
  zthinBin?: string;
  /** the vmcp command, e.g. 'vmcp' or 'sudo /sbin/vmcp' (not quoted) */
  vmcpCommand?: string;
  vmurCommand?: string;
  /** local directories that file:// import sources and export targets may be in */
  allowedDirs?: string[];
  /** http(s) imports: size cap, redirect limit (default 3), host allow-list (default any) */
  http?: HttpSourcePolicy;
  /** credentials for user@host transfers (the user comes from remote_host) */
  remoteHostAuth?: RemoteHostAuth;
  rootVdev?: string;
  /** where guests' console logs accumulate on the management guest (`<dir>/<USERID>/console.log`) */
  consoleLogDir?: string;
  log?: Logger;
  /** zvm_image_transfer_bytes_total of this host (its ZHost name) */
  metrics?: { registry: Registry; host: string };
}

export const MGMT_DEFAULTS = {
  repository: '/var/lib/zvmsdk/images',
  zthinBin: '/opt/zthin/bin',
  vmcpCommand: 'vmcp',
  vmurCommand: 'vmur',
  rootVdev: '0100',
} as const;

export function createMgmtOps(config: MgmtConfig): MgmtOps {
  const log = (config.log ?? silentLogger()).child({ component: 'mgmt', host: config.endpoint.host });
  const ssh = createSshConnection(config.endpoint, log);
  const repo = createRepository(checkAbsolutePath(config.repository ?? MGMT_DEFAULTS.repository), config.rootVdev ?? MGMT_DEFAULTS.rootVdev);
  const ctx = createMgmtContext({
    ssh,
    repo,
    log,
    allowedDirs: config.allowedDirs ?? [],
    http: config.http ?? {},
    remoteAuth: config.remoteHostAuth ?? {},
    transferred: transferCounter(config.metrics),
    commands: {
      vmcp: config.vmcpCommand ?? MGMT_DEFAULTS.vmcpCommand,
      vmur: config.vmurCommand ?? MGMT_DEFAULTS.vmurCommand,
      zthinBin: config.zthinBin ?? MGMT_DEFAULTS.zthinBin,
    },
  });

  const consoleLogDir = checkAbsolutePath(config.consoleLogDir ?? CONSOLE_LOG_DIR);
  return {
    async vmcp(command, opts) {
      const words = command.trim().split(/\s+/).filter(Boolean);
      const res = await ctx.run([ctx.commands.vmcp, ...words], opts);
      // feilong merges stderr into stdout, CP's response first
      const output = [res.stdout, res.stderr].filter(Boolean).join('');
      log.debug({ command, exitCode: res.exitCode }, 'vmcp');
      return { exitCode: res.exitCode, output };
    },
    importImage: (req, opts) => importImage(ctx, req, opts),
    exportImage: (req, opts) => exportImage(ctx, req, opts),
    async listImages() {
      return repo.list(await ctx.files());
    },
    async describeImage(name) {
      return repo.find(await ctx.files(), name);
    },
    async deleteImage(name) {
      const files = await ctx.files();
      const record = await repo.find(files, checkImageName(name));
      if (!record) return;
      await files.removeTree(repo.imageDir(record.osVersion, record.name));
      log.info({ image: record.name }, 'image deleted');
    },
    deployImage: (req, opts) => deployImage(ctx, req, opts),
    captureImage: (req, opts) => captureImage(ctx, req, opts),
    growRootVolume: (userid, osVersion, opts) => punchGrowRootScript(ctx, userid, osVersion, opts),
    punchFile: (userid, file, opts) => punchToReader(ctx, userid, file, (detail) => new ImageError('guest_punch_file', GuestImageRs.transportFailed, `Failed to punch ${file.name} to ${userid.toUpperCase()}: ${detail}`, { module: 'guest' }), opts),
    consoleOutput: createConsoleReader(ctx, consoleLogDir),
    forgetGuest: createConsoleForget(ctx, consoleLogDir),
    verifyHost: () => ssh.verifyHost(),
    close: () => ssh.close(),
  };
}
