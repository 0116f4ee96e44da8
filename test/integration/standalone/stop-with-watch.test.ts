/**
 * A clean stop does not wait on its watchers: a client that keeps `GET /watch/:kind` open (as
 * `zvm-operator get -w` does until interrupted) has its stream ended, and the process exits. The
 * compiled standalone, over plain HTTP; the client never closes its socket.
 */
import { get, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { crash, startOperator, stopGracefully } from './crash-storm-support.js';
import { tempStateDir } from './helpers.js';

const state = tempStateDir();
afterAll(() => state.cleanup());

function openWatch(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, resolve).once('error', reject));
}

it('ends a watch that its client keeps open and exits on SIGTERM', async () => {
  const op = await startOperator(join(state.dir, 'run'));
  const res = await openWatch(`${op.adminUrl}/watch/zguests`);
  expect(res.statusCode).toBe(200);
  const ended = new Promise<string>((resolve) => {
    res.once('end', () => resolve('ended'));
    res.once('close', () => resolve('closed'));
  });
  res.resume();
  const exited = stopGracefully(op.proc).then(() => 'exited');
  const bound = new Promise<string>((resolve) => setTimeout(() => resolve('still running after 20 s'), 20_000).unref());
  const outcome = await Promise.race([exited, bound]);
  if (outcome !== 'exited') await crash(op.proc);
  expect(outcome).toBe('exited');
  expect(op.proc.exitStatus()).toBe(0);
  expect(['ended', 'closed']).toContain(await ended);
}, 90_000);
