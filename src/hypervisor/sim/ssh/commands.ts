/**
 * The commands the simulated management guest runs (the set the mgmt adapter issues, see
 * src/hypervisor/mgmt/mgmt-ops.ts): vmcp, md5sum, unpackdiskimage, creatediskimage, vmur punch,
 * and vmur list / vmur re -t -O on the management guest's own reader (reader.ts). Programs are matched by base name, so '/opt/zthin/bin/unpackdiskimage' works.
 * Every path argument is confined to the served tree; anything else is "command not found".
 */
import { readFile } from 'node:fs/promises';
import { posix } from 'node:path';
import type { SimHost } from '../host.js';
import { md5File, type DiskImageTools } from './disk-images.js';
import { vmurList, vmurReceive } from './reader.js';
import type { RootedPaths } from './rooted-path.js';
import { shellWords } from './shell-words.js';
import { runVmcp, type VmcpIdentity } from './vmcp.js';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CommandDeps {
  sim: SimHost;
  paths: RootedPaths;
  disks: DiskImageTools;
  identity: VmcpIdentity;
}

const USERID = /^[A-Za-z0-9@#$_-]{1,8}$/;
const VDEV = /^[0-9A-Fa-f]{1,4}$/;

const usage = (program: string, text: string): CommandResult => ({ exitCode: 2, stdout: '', stderr: `${program}: ${text}\n` });

export function createCommandRunner(deps: CommandDeps) {
  const tools = deps.disks;

  async function md5sum(args: string[]): Promise<CommandResult> {
    if (args.length !== 1) return usage('md5sum', 'one file expected');
    const path = await deps.paths.resolve(args[0]!);
    return { exitCode: 0, stdout: `${await md5File(path)}  ${args[0]}\n`, stderr: '' };
  }

  async function diskTool(program: string, args: string[]): Promise<CommandResult> {
    const [userid, vdev, file, flag, level] = args;
    if (!userid || !USERID.test(userid) || !vdev || !VDEV.test(vdev) || !file) return usage(program, 'usage: <userid> <vdev> <image file>');
    const v = vdev.toUpperCase().padStart(4, '0');
    const path = await deps.paths.resolve(file);
    if (program === 'unpackdiskimage') return tools.unpack(userid.toUpperCase(), v, path, file);
    const compression = flag === '--compression' && level !== undefined ? Number(level) : 6;
    if (!Number.isInteger(compression) || compression < 0 || compression > 9) return usage(program, 'compression must be 0-9');
    return tools.create(userid.toUpperCase(), v, path, compression);
  }

  /** vmur punch -r -u <USERID> -N <name> <file>: the file lands in the guest's reader. */
  async function vmur(args: string[]): Promise<CommandResult> {
    const [sub, ...rest] = args;
    if (sub === 'list' || sub === 'li') return vmurList(deps.sim, deps.identity.userid);
    if (sub === 're' || sub === 'receive') return vmurReceive(deps.sim, deps.identity.userid, rest);
    const opt = (name: string) => {
      const i = args.indexOf(name);
      return i >= 0 ? args[i + 1] : undefined;
    };
    const user = opt('-u')?.toUpperCase();
    const file = args.at(-1);
    if (args[0] !== 'punch' || !user || !file) return usage('vmur', 'usage: vmur punch -r -u <userid> -N <name> <file>');
    if (!deps.sim.queryUser(user)) return { exitCode: 1, stdout: '', stderr: `vmur: ${user} not in CP directory\n` };
    const bytes = await readFile(await deps.paths.resolve(file));
    const name = opt('-N') ?? posix.basename(file);
    // the spool file name and type are the parts of <name>.<type>
    const dot = name.indexOf('.');
    const punched = deps.sim.punchToReader(user, {
      origin: deps.identity.userid, name: dot < 0 ? name : name.slice(0, dot), fileType: dot < 0 ? '' : name.slice(dot + 1), bytes,
    });
    const id = String(punched.spoolId).padStart(4, '0');
    const recs = Math.max(1, Math.ceil(bytes.length / 80));
    deps.sim.appendConsole(user, `RDR FILE ${id} SENT FROM ${deps.identity.userid} PUN WAS ${id} RECS ${String(recs).padStart(4, '0')} CPY  001 A NOHOLD NOKEEP ${name}`);
    return { exitCode: 0, stdout: `Reader file with spoolid ${id} created.\n`, stderr: '' };
  }

  /** Answers a command only once what it changed on the host (console lines, reader files) is on disk. */
  return async function run(commandLine: string): Promise<CommandResult> {
    const result = await execute(commandLine);
    try {
      await deps.sim.commit();
    } catch (err) {
      return { exitCode: 1, stdout: '', stderr: `${(err as Error).message}\n` };
    }
    return result;
  };

  async function execute(commandLine: string): Promise<CommandResult> {
    const [program, ...args] = shellWords(commandLine);
    const name = posix.basename(program ?? '');
    try {
      switch (name) {
        case 'vmcp': return runVmcp(deps.sim, deps.identity, args);
        case 'md5sum': return await md5sum(args);
        case 'unpackdiskimage':
        case 'creatediskimage': return await diskTool(name, args);
        case 'vmur': return await vmur(args);
        default: return { exitCode: 127, stdout: '', stderr: `sh: ${program ?? ''}: command not found\n` };
      }
    } catch (err) {
      return { exitCode: 1, stdout: '', stderr: `${name}: ${(err as Error).message}\n` };
    }
  }
}
