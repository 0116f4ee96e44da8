/**
 * CP commands as the simulated management guest's vmcp answers them (docs/smapi.md §4.1,
 * §4.2: QUERY USERID, QUERY USER, Q <userid>, SPOOL READER CLASS; QUERY CHPID xx PCHID, which feilong
 * runs for each FCP's CHPID): the response on stdout; for a non-zero CP response also
 * `Error: non-zero CP response for command '<CMD>': #<code>` on stderr and exit code 1.
 */
import { pchidOf } from '../fcp-inventory.js';
import type { SimHost } from '../host.js';
import type { CommandResult } from './commands.js';

export interface VmcpIdentity {
  /** the management guest's own userid (`q userid`) */
  userid: string;
  systemName: string;
}

function cpError(command: string, code: number, text: string): CommandResult {
  return { exitCode: 1, stdout: `${text}\n`, stderr: `Error: non-zero CP response for command '${command.toUpperCase()}': #${code}\n` };
}

function queryUser(sim: SimHost, command: string, userid: string, unknownIsInvalid: boolean): CommandResult {
  const u = userid.toUpperCase();
  const state = sim.queryUser(u);
  if (state === undefined && unknownIsInvalid) return cpError(command, 3, `HCPCQV003E Invalid option - ${u}`);
  if (state === undefined || state === 'off') return cpError(command, 45, `HCPCQU045E ${u} not logged on`);
  if (state === 'logoff-pending') return cpError(command, 361, `HCPCQU361E LOGOFF/FORCE pending for user ${u}`);
  return { exitCode: 0, stdout: `${u.padEnd(8)} - DSC\n`, stderr: '' };
}

/** CP's QUERY CHPID xx PCHID: the physical channel of the sim's FCP inventory. */
function queryPchid(sim: SimHost, command: string, chpid: string): CommandResult {
  if (!/^[0-9A-F]{1,2}$/.test(chpid)) return cpError(command, 846, 'HCPQPA846E Invalid channel path identifier.');
  const path = chpid.padStart(2, '0');
  const pchid = pchidOf(sim.config, path);
  return { exitCode: 0, stdout: pchid ? `Path ${path} is associated with physical channel ${pchid}\n` : `Path ${path} is not associated with a physical channel\n`, stderr: '' };
}

export function runVmcp(sim: SimHost, me: VmcpIdentity, args: string[]): CommandResult {
  const command = args.join(' ');
  const words = args.map((a) => a.toUpperCase());
  if (words.length === 0) return { exitCode: 4, stdout: '', stderr: 'vmcp: no command given\n' };
  const [verb, a1, a2] = words;
  const isQuery = verb === 'Q' || verb === 'QUERY';
  if (isQuery && a1 === 'USERID' && words.length === 2) return { exitCode: 0, stdout: `${me.userid} AT ${me.systemName}\n`, stderr: '' };
  if (isQuery && a1 === 'USER' && a2 && words.length === 3) return queryUser(sim, command, a2, false);
  if (isQuery && a1 === 'CHPID' && a2 && words[3] === 'PCHID' && words.length === 4) return queryPchid(sim, command, a2);
  if (isQuery && a1 && words.length === 2) return queryUser(sim, command, a1, true);
  // SPOOL READER CLASS *: lets the reader read files of any class; nothing else to model
  if ((verb === 'SPOOL' || verb === 'SP') && (a1 === 'READER' || a1 === 'RDR') && a2 === 'CLASS' && /^[A-Z0-9*]$/.test(words[3] ?? '') && words.length === 4) {
    return { exitCode: 0, stdout: '', stderr: '' };
  }
  if (!isQuery) return cpError(command, 1, `HCPCMD001E Unknown CP command: ${verb}`);
  return cpError(command, 26, 'HCPCFC026E Operand missing or invalid');
}
