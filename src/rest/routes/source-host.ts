/**
 * An http(s) image URL whose host does not resolve or refuses the connection is the caller's mistake:
 * checked before anything is written, and answered 400 naming the host (the reference, and the import
 * before this check, answered 500 "fetch failed" after creating the image record).
 */
import { lookup } from 'node:dns/promises';
import { connect } from 'node:net';
import { InvalidInputError } from '../../errors.js';

/** How long the connection test may take; a slow or silent server is left to the import itself. */
const CONNECT_MS = 3000;

/** The message for a failed look-up or connection, or undefined when the failure is not the URL's fault. */
export function unreachableSourceMessage(host: string, port: number, code: string | undefined): string | undefined {
  if (code === 'ENOTFOUND' || code === 'EAI_NONAME' || code === 'EAI_NODATA') return `url: the host ${host} does not resolve; check the image URL`;
  if (code === 'ECONNREFUSED') return `url: ${host}:${port} refused the connection; check the image URL and that its server runs`;
  return undefined;
}

export async function checkSourceHost(url: string): Promise<void> {
  const u = new URL(url);
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  const port = Number(u.port) || (u.protocol === 'https:' ? 443 : 80);
  let address: string;
  try {
    ({ address } = await lookup(host));
  } catch (err) {
    const message = unreachableSourceMessage(host, port, (err as NodeJS.ErrnoException).code);
    if (message) throw new InvalidInputError(message);
    return;
  }
  const code = await new Promise<string | undefined>((resolve) => {
    const socket = connect({ host: address, port, timeout: CONNECT_MS });
    socket.once('connect', () => { socket.destroy(); resolve(undefined); });
    socket.once('timeout', () => { socket.destroy(); resolve(undefined); });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code));
  });
  const message = unreachableSourceMessage(host, port, code);
  if (message) throw new InvalidInputError(message);
}
