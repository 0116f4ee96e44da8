import { jest } from '@jest/globals';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { bufferedStdout, createLogger, FLUSH_MS } from '../../src/log.js';

const LOG_MODULE = join(process.cwd(), 'src/log.ts');

/** A logger whose output is kept in memory as text. */
function capturingLogger() {
  const chunks: string[] = [];
  const stream = new Writable({ write(chunk: Buffer, _enc, done) { chunks.push(chunk.toString()); done(); } });
  return { log: createLogger({ level: 'info' }, stream), text: () => chunks.join('') };
}

describe('log redaction', () => {
  it.each(['password', 'passphrase', 'token', 'adminToken', 'privateKey'])('hides %s at the top level and one object down', (field) => {
    const { log, text } = capturingLogger();
    log.info({ [field]: 'SECRET-VALUE', endpoint: { host: 'h', [field]: 'SECRET-VALUE' } }, 'connecting');
    expect(text()).not.toContain('SECRET-VALUE');
    expect(text()).toContain('[redacted]');
    expect(text()).toContain('"host":"h"');
  });

  it('hides the auth headers of a request', () => {
    const { log, text } = capturingLogger();
    log.info({ req: { headers: { 'x-auth-token': 'SECRET-A', 'x-admin-token': 'SECRET-B', authorization: 'Bearer SECRET-C', accept: '*/*' } } }, 'request');
    expect(text()).not.toMatch(/SECRET-/);
    expect(text()).toContain('*/*');
  });
});

describe('buffered stdout', () => {
  const run = (code: string) =>
    spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `import { createLogger } from ${JSON.stringify(LOG_MODULE)};\n${code}`], { encoding: 'utf8', timeout: 30_000 });
  const messages = (out: string) => out.trim().split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { msg: string }).msg);

  it('writes every line out when the process exits at once, by exit() or by a throw', () => {
    expect(messages(run("const log = createLogger(); log.info('one'); log.warn('two'); process.exit(3);").stdout)).toEqual(['one', 'two']);
    const thrown = run("createLogger().error('last words'); throw new Error('boom');");
    expect(thrown.status).not.toBe(0);
    expect(messages(thrown.stdout)).toEqual(['last words']);
  });

  it('writes out a partly filled buffer while the process keeps running', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zvm-log-'));
    const fd = openSync(join(dir, 'out.log'), 'w');
    const dest = bufferedStdout(FLUSH_MS, fd);
    try {
      dest.write('{"msg":"alone"}\n');
      const deadline = Date.now() + 10_000;
      while (!readFileSync(join(dir, 'out.log'), 'utf8').includes('alone') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(readFileSync(join(dir, 'out.log'), 'utf8')).toBe('{"msg":"alone"}\n');
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('wakes the process only while a line waits to be written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zvm-log-'));
    const out = join(dir, 'out.log');
    const fd = openSync(out, 'w');
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask'] }); // the file stream says 'ready' on a tick
    try {
      const dest = bufferedStdout(FLUSH_MS, fd);
      expect(jest.getTimerCount()).toBe(0);
      dest.write('{"msg":"one"}\n');
      dest.write('{"msg":"two"}\n');
      expect(jest.getTimerCount()).toBe(1);
      jest.advanceTimersByTime(FLUSH_MS);
      expect(readFileSync(out, 'utf8')).toBe('{"msg":"one"}\n{"msg":"two"}\n');
      expect(jest.getTimerCount()).toBe(0);
      dest.write('{"msg":"three"}\n');
      jest.advanceTimersByTime(FLUSH_MS);
      expect(readFileSync(out, 'utf8')).toContain('three');
    } finally {
      jest.useRealTimers();
      closeSync(fd);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // A line logged while an earlier flush was still being written must not wait for a later line: the
  // last lines of a start ("standalone mode ready") are what a waiting reader looks for. Here the one
  // libuv worker is busy, as on a loaded machine, when the first flush is due.
  it('writes out lines logged while a flush is still being written, with no further line to push them', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zvm-log-'));
    const out = join(dir, 'out.log');
    try {
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', `
        import { openSync, readFileSync } from 'node:fs';
        import { pbkdf2 } from 'node:crypto';
        import { bufferedStdout } from ${JSON.stringify(LOG_MODULE)};
        const dest = bufferedStdout(50, openSync(${JSON.stringify(out)}, 'w'));
        pbkdf2('x', 'y', 2_000_000, 32, 'sha256', () => {}); // holds the only worker for a while
        dest.write('{"msg":"first"}\\n');
        setTimeout(() => dest.write('{"msg":"last"}\\n'), 120);
        const deadline = Date.now() + 15_000;
        const poll = setInterval(() => {
          const text = readFileSync(${JSON.stringify(out)}, 'utf8');
          if (text.includes('last') || Date.now() > deadline) { clearInterval(poll); console.log(JSON.stringify(text)); process.exit(0); }
        }, 50);
      `], { encoding: 'utf8', timeout: 30_000, env: { ...process.env, UV_THREADPOOL_SIZE: '1' } });
      expect(child.stderr).toBe('');
      expect(JSON.parse(child.stdout)).toBe('{"msg":"first"}\n{"msg":"last"}\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
