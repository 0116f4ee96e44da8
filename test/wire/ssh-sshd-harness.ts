/**
 * A real OpenSSH sshd (Debian's openssh-server) on a loopback port, configured entirely from a
 * temp dir: its own sshd_config, host key and authorized_keys, and a bin/ directory on the
 * session PATH holding small scripts that stand in for vmcp and zthin's tools (reading and writing
 * zthin's real image header with dd, printf, gzip and zcat).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateEd25519KeyPair } from '../../src/hypervisor/sim/ssh/ssh-keys.js';

export const SSHD = '/usr/sbin/sshd';

export interface Sshd {
  port: number;
  user: string;
  dir: string;
  bin: string;
  privateKey: string;
  /** the host key's public line (`ssh-ed25519 AAAA…`), as a known_hosts entry gives it */
  hostPublicKey: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

/** Waits (bounded) until sshd sends its banner. */
async function waitForBanner(port: number, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`sshd exited with ${child.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('SSH-'));
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`sshd did not answer on port ${port}: ${log()}`);
}

const VMCP = `#!/bin/sh
# stands in for s390-tools' vmcp: CP's answer on stdout; an error line on stderr and exit 1
cmd=$(echo "$*" | tr 'a-z' 'A-Z')
case "$cmd" in
  "Q USERID"|"QUERY USERID") echo "OPNCLOUD AT SSHDHOST"; exit 0 ;;
  "Q USER LINUX01"|"QUERY USER LINUX01") echo "LINUX01  - DSC"; exit 0 ;;
  "Q USER "*|"QUERY USER "*) u=\${cmd##* }; echo "HCPCQU045E $u not logged on"; echo "Error: non-zero CP response for command '$cmd': #45" >&2; exit 1 ;;
  *) echo "HCPCMD001E Unknown CP command"; echo "Error: non-zero CP response for command '$cmd': #1" >&2; exit 1 ;;
esac
`;

/**
 * stands in for zthin's unpackdiskimage on LINUX01 (other userids are refused like LINK would):
 * reads the xCAT header at zthin's offsets with dd, refuses an unknown tag or a disk too small
 * (DISK_CYL, 100 cylinders), and writes the data (zcat for a level above 0) to disks/<USERID>.<vdev>
 */
const UNPACK = (dir: string) => `#!/bin/sh
if [ "$1" != "LINUX01" ]; then echo "ERROR: Unable to link $1 $2: DASD $2 not linked; not in CP directory"; exit 3; fi
tag=$(dd if="$3" bs=1 count=20 2>/dev/null)
case "$tag" in
  "xCAT CKD Disk Image:"|"xCAT FBA Disk Image:"|"xCAT FBA Part Image:") ;;
  *) echo "ERROR: Disk image type not recognized"; exit 3 ;;
esac
size=$(dd if="$3" bs=1 count=16 skip=20 2>/dev/null | awk '{print $1}')
level=$(dd if="$3" bs=1 count=1 skip=54 2>/dev/null)
if [ "$size" -gt "\${DISK_CYL:-100}" ]; then echo "ERROR: Target disk is too small for specified image."; exit 3; fi
mkdir -p "${dir}/disks"
if [ "$level" = "0" ]; then
  dd if="$3" bs=512 skip=1 2>/dev/null > "${dir}/disks/$1.$2"
else
  dd if="$3" bs=512 skip=1 2>/dev/null | zcat > "${dir}/disks/$1.$2" || { echo "ERROR: Failed deploying disk image at stage(rc): zcat"; exit 3; }
fi
echo "$1 $2 $size $(md5sum < "$3" | cut -c1-32)" >> "${dir}/deployed.log"
echo "Image $3 unpacked"
`;

/** stands in for zthin's creatediskimage of a 100-cylinder 3390: printf's blank-padded header, then the disk (gzip at the level) */
const CREATE = (dir: string) => `#!/bin/sh
if [ "$1" != "LINUX01" ]; then echo "ERROR: Unable to link $1 $2: DASD $2 not linked; not in CP directory"; exit 3; fi
if [ -e "$3" ]; then echo "ERROR: The specified image file already exists."; exit 3; fi
level=\${5:-6}
printf '%-512s' "xCAT CKD Disk Image:$(printf '%16s' '100 CYL') HLen: 0055 GZIP: $level" > "$3"
if [ "$level" = "0" ]; then cat "${dir}/disks/$1.$2" >> "$3"; else gzip -"$level" -n < "${dir}/disks/$1.$2" >> "$3"; fi
`;

const VMUR = (dir: string) => `#!/bin/sh
echo "$*" >> "${dir}/punched.log"
echo "Reader file with spoolid 0001 created."
`;

export async function startSshd(dir: string): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error('openssh-server is not installed: apt-get install openssh-server');
  // sshd running as root insists on its privilege separation directory
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, text] of [['vmcp', VMCP], ['unpackdiskimage', UNPACK(dir)], ['creatediskimage', CREATE(dir)], ['vmur', VMUR(dir)]] as const) {
    writeFileSync(join(bin, name), text);
    chmodSync(join(bin, name), 0o755);
  }
  const host = generateEd25519KeyPair();
  const client = generateEd25519KeyPair();
  writeFileSync(join(dir, 'host_key'), host.private, { mode: 0o600 });
  writeFileSync(join(dir, 'authorized_keys'), `${client.public}\n`, { mode: 0o600 });
  const port = await freePort();
  writeFileSync(join(dir, 'sshd_config'), [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    'StrictModes no',
    'UsePAM no',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'PubkeyAuthentication yes',
    'PermitRootLogin prohibit-password',
    `SetEnv PATH=${bin}:/usr/local/bin:/usr/bin:/bin`,
    'Subsystem sftp internal-sftp',
    '',
  ].join('\n'));
  let output = '';
  const child = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  await waitForBanner(port, child, () => output);
  return {
    port,
    user: userInfo().username,
    dir,
    bin,
    privateKey: client.private,
    hostPublicKey: host.public,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
