/**
 * A file for a guest's virtual reader: written to the repository's transport folder under a random name,
 * punched with `vmur punch -r -u <USERID> -N <name>`, and the staged copy removed whatever happened (it
 * may hold a node's bootstrap secrets). The grow-root script and Cluster API bootstrap data go this way.
 */
import { randomUUID } from 'node:crypto';
import { InvalidInputError } from '../../errors.js';
import type { MgmtCallOptions } from '../image-port.js';
import type { MgmtContext } from './context.js';
import { joinInside } from './paths.js';

/** CP spool file names and types: 1-8 characters each, name.type. */
const SPOOL_NAME = /^[A-Za-z0-9@#$_+-]{1,8}(\.[A-Za-z0-9@#$_+-]{1,8})?$/;

export interface ReaderPunch {
  /** <name>.<type> as the reader lists it, e.g. config.ign */
  name: string;
  bytes: Buffer | string;
}

/** Punches `file` to the guest's reader; a failed punch is thrown as `failed(detail)`. */
export async function punchToReader(ctx: MgmtContext, userid: string, file: ReaderPunch, failed: (detail: string) => Error, opts: MgmtCallOptions = {}): Promise<void> {
  if (!SPOOL_NAME.test(file.name)) throw new InvalidInputError(`spool file name ${file.name} is not <name>.<type> of 1-8 characters each`);
  const files = await ctx.files();
  const staged = joinInside(ctx.repo.transportDir(), `${randomUUID()}-${file.name}`);
  try {
    await ctx.intoTransport(files, () => files.writeText(staged, file.bytes));
    const punch = await ctx.run([ctx.commands.vmur, 'punch', '-r', '-u', userid.toUpperCase(), '-N', file.name, staged], opts);
    if (punch.exitCode !== 0) throw failed(`${punch.stdout}\n${punch.stderr}`.trim());
  } finally {
    await files.removeTree(staged).catch(() => undefined);
  }
}
