/**
 * Console spool: a per-guest console log appended deterministically (logon, IPL, pause, logoff),
 * bounded to `consoleMaxLines`. Text never depends on the wall clock; the virtual clock (call
 * sequence number) stamps each line so that repeated runs produce the same text.
 *
 * Spool files (docs/smapi.md §1.9 Image_Console_Get, §4.2): a CLOSE of the console takes the
 * lines spooled since the previous CLOSE into a reader file (type CON, class T, a spool id) and
 * transfers it to the reader of the management guest, where `vmur list` / `vmur receive` find it.
 * The retained log itself stays (in-process callers read it whole). A reader keeps at most
 * MAX_READER_FILES files, the oldest dropped first, so a host nobody reads from stays bounded.
 */
import type { SimContext } from './context.js';
import type { ReaderFile } from './state.js';

export const MAX_READER_FILES = 1000;
const MAX_SPOOL_ID = 9999;

export function appendConsole(ctx: SimContext, userid: string, ...lines: string[]): void {
  let spool = ctx.state.consoles.get(userid);
  if (!spool) {
    spool = [];
    ctx.state.consoles.set(userid, spool);
  }
  for (const line of lines) spool.push(`${String(ctx.state.seq).padStart(8, '0')} ${line}`);
  const excess = spool.length - ctx.config.consoleMaxLines;
  if (excess > 0) spool.splice(0, excess);
  const unclosed = (ctx.state.consoleUnclosed.get(userid) ?? 0) + lines.length;
  ctx.state.consoleUnclosed.set(userid, Math.min(unclosed, spool.length));
}

export function consoleText(ctx: SimContext, userid: string): string | undefined {
  const spool = ctx.state.consoles.get(userid);
  return spool && spool.length > 0 ? `${spool.join('\n')}\n` : undefined;
}

/**
 * A deleted guest's spool goes: its console, its own reader, and the console files it left unread
 * in other readers [sim choice: CP keeps a transferred file until its new owner purges it, but the
 * management guest forgets a deleted guest's console log, so nobody would ever read them].
 */
export function dropConsole(ctx: SimContext, userid: string): void {
  ctx.state.consoles.delete(userid);
  ctx.state.consoleUnclosed.delete(userid);
  ctx.state.readers.delete(userid);
  // readers belong to few owners (the management guest): looking at each is cheap
  for (const owner of [...ctx.state.readers.keys()]) {
    const files = ctx.state.readers.get(owner) ?? [];
    if (!files.some((f) => f.origin === userid)) continue;
    const kept = files.filter((f) => f.origin !== userid);
    if (kept.length > 0) ctx.state.readers.set(owner, kept);
    else ctx.state.readers.delete(owner);
  }
}

/**
 * SPOOL CONSOLE CLOSE + TRANSFER to `owner`'s reader: the lines spooled since the last close
 * become one CON file. Nothing new spooled: no file (CP does not keep an empty console file).
 */
export function closeConsole(ctx: SimContext, userid: string, owner: string): ReaderFile | undefined {
  const spool = ctx.state.consoles.get(userid) ?? [];
  const n = Math.min(ctx.state.consoleUnclosed.get(userid) ?? 0, spool.length);
  if (n === 0) return undefined;
  ctx.state.consoleUnclosed.set(userid, 0);
  const file: ReaderFile = { spoolId: nextSpoolId(ctx), origin: userid, type: 'CON', cls: 'T', lines: spool.slice(spool.length - n) };
  addToReader(ctx, owner, file);
  return file;
}

/** What `vmur punch -r -u <owner> -N <name>.<fileType>` leaves in `owner`'s reader. */
export interface PunchedFile {
  origin: string;
  name: string;
  fileType: string;
  bytes: Buffer;
}

/** A punched file arrives in `owner`'s reader (class A, device PUN), bounded like the console files. */
export function punchToReader(ctx: SimContext, owner: string, punched: PunchedFile): ReaderFile {
  const file: ReaderFile = {
    spoolId: nextSpoolId(ctx), origin: punched.origin, type: 'PUN', cls: 'A', lines: [],
    name: punched.name, fileType: punched.fileType, data: punched.bytes.toString('base64'),
  };
  addToReader(ctx, owner, file);
  return { ...file, lines: [] };
}

/** 80-byte records of a file (a console file: one a line). */
export function readerRecords(f: ReaderFile): number {
  return f.data === undefined ? f.lines.length : Math.max(1, Math.ceil(Buffer.byteLength(f.data, 'base64') / 80));
}

/** A file arrives at the end of `owner`'s reader; past MAX_READER_FILES the oldest goes. */
function addToReader(ctx: SimContext, owner: string, file: ReaderFile): void {
  let reader = ctx.state.readers.get(owner);
  if (!reader) {
    reader = [];
    ctx.state.readers.set(owner, reader);
  }
  reader.push(file);
  if (reader.length > MAX_READER_FILES) reader.splice(0, reader.length - MAX_READER_FILES);
}

function nextSpoolId(ctx: SimContext): number {
  const id = ctx.state.nextSpoolId;
  ctx.state.nextSpoolId = id >= MAX_SPOOL_ID ? 1 : id + 1;
  return id;
}

/** The files in `owner`'s reader, oldest first (copies). */
export function readerFiles(ctx: SimContext, owner: string): ReaderFile[] {
  return (ctx.state.readers.get(owner) ?? []).map((f) => ({ ...f, lines: [...f.lines] }));
}

/** Removes one file from `owner`'s reader and returns it (what a receive does), if it is there. */
export function receiveReaderFile(ctx: SimContext, owner: string, spoolId: number): ReaderFile | undefined {
  const reader = ctx.state.readers.get(owner);
  const i = reader?.findIndex((f) => f.spoolId === spoolId) ?? -1;
  if (!reader || i < 0) return undefined;
  const [file] = reader.splice(i, 1);
  if (reader.length === 0) ctx.state.readers.delete(owner);
  return file;
}
