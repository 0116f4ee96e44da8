/**
 * The management guest's virtual reader as vmur sees it (docs/rest-interface.md §3.13
 * "Console"): `vmur list` answers CP QUERY RDR ALL's table, one file a line
 * (`<ORIGINID> <spoolid> <class> <type> <records> …`); `vmur re -t -O <spoolid>` writes the
 * file's text to stdout and removes it from the reader, as a receive does.
 */
import type { SimHost } from '../host.js';
import type { ReaderFile } from '../state.js';
import { readerRecords } from '../spool.js';
import type { CommandResult } from './commands.js';

const HEADER = 'ORIGINID FILE CLASS RECORDS  CPY HOLD DATE  TIME     NAME      TYPE     DIST';

const fail = (text: string, exitCode = 1): CommandResult => ({ exitCode, stdout: '', stderr: `vmur: ${text}\n` });

function listLine(f: ReaderFile, date: string, time: string): string {
  const id = String(f.spoolId).padStart(4, '0');
  const recs = String(readerRecords(f)).padStart(8, '0');
  return `${f.origin.padEnd(8)} ${id} ${f.cls} ${f.type} ${recs} 001 NONE ${date} ${time} ${(f.name ?? '').padEnd(9)} ${(f.fileType ?? '').padEnd(8)} ${f.origin}`;
}

export function vmurList(sim: SimHost, owner: string): CommandResult {
  const files = sim.readerFiles(owner);
  if (files.length === 0) return { exitCode: 0, stdout: 'NO RDR FILES\n', stderr: '' };
  // the virtual clock has no dates: every file shows the host's IPL date and time
  const [, month, day] = sim.config.host.iplDate.split('-');
  const date = `${month}/${day}`;
  const lines = files.map((f) => listLine(f, date, sim.config.host.iplTime));
  return { exitCode: 0, stdout: `${[HEADER, ...lines].join('\n')}\n`, stderr: '' };
}

/** `vmur re[ceive] [-t] [-f] -O <spoolid>`: only stdout output (-O) is emulated. */
export function vmurReceive(sim: SimHost, owner: string, args: string[]): CommandResult {
  const flags = args.filter((a) => a.startsWith('-'));
  const operands = args.filter((a) => !a.startsWith('-'));
  const unknown = flags.find((f) => !['-t', '-f', '-O', '--text', '--force', '--stdout'].includes(f));
  if (unknown) return fail(`invalid option -- '${unknown.replace(/^-+/, '')}'`, 2);
  if (!flags.includes('-O') && !flags.includes('--stdout')) return fail('the simulated vmur receives to stdout only (-O)', 2);
  const [spool] = operands;
  if (operands.length !== 1 || !spool || !/^\d{1,4}$/.test(spool)) return fail('usage: vmur re -t -O <spoolid>', 2);
  const file = sim.receiveReaderFile(owner, Number(spool));
  if (!file) return fail(`Reader file ${spool.padStart(4, '0')} does not exist`);
  if (file.data !== undefined) return { exitCode: 0, stdout: Buffer.from(file.data, 'base64').toString('latin1'), stderr: '' };
  return { exitCode: 0, stdout: file.lines.map((l) => `${l}\n`).join(''), stderr: '' };
}
