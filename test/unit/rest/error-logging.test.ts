/**
 * Quiet, honest logs (issue 39): an expected refusal answered with a 5xx (501 not supported, 503 host
 * unreachable) is a warning without a stack; only a failure nobody expected is an error
 * with its stack.
 */
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { NotSupportedError, ZvmError } from '../../../src/errors.js';
import { registerErrorHandler } from '../../../src/rest/error-handler.js';

async function logged(thrown: Error): Promise<{ status: number; lines: Record<string, unknown>[] }> {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({ write: (chunk: Buffer, _e, done) => { lines.push(JSON.parse(chunk.toString())); done(); } });
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, sink) as unknown as FastifyBaseLogger, disableRequestLogging: true });
  registerErrorHandler(app);
  app.get('/x', async () => { throw thrown; });
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const res = await fetch(`${base}/x`);
  await app.close();
  return { status: res.status, lines: lines.filter((l) => !String(l.msg).startsWith('Server listening')) };
}

describe('REST error logging', () => {
  it.each([
    ['a 501 (not supported)', new NotSupportedError('capture of a SCSI disk is not supported')],
    ['a 503 (host unreachable)', new ZvmError('UNAVAILABLE', 'SMAPI of host zvm1 is unreachable')],
  ])('logs %s as a warning without a stack', async (_what, err) => {
    const { status, lines } = await logged(err);
    expect(status).toBeGreaterThanOrEqual(500);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'request refused']]);
    expect(JSON.stringify(lines)).not.toContain('"stack"');
  });

  it('logs an unexpected failure as an error with its stack', async () => {
    const { status, lines } = await logged(new TypeError('x is undefined'));
    expect(status).toBe(500);
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[50, 'request failed']]);
    expect(JSON.stringify(lines)).toContain('"stack"');
  });
});
