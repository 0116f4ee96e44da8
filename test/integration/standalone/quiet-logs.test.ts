/**
 * Quiet, honest logs (issue 39), from the compiled standalone: a normal start on a fresh state directory
 * logs nothing above info and no stack; --log-format text writes lines a person reads, JSON stays the
 * default off a terminal; --log-level sets the threshold.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { formatLine } from '../../../src/log.js';
import { spawnGroup, stopGracefully } from './crash-storm-support.js';
import { tempStateDir, waitFor } from './helpers.js';

describe('standalone logs', () => {
  const state = tempStateDir();
  afterAll(() => state.cleanup());

  /** Starts, waits until it listens (its state lock names the admin URL, whatever the log says), stops; its log. */
  async function startAndStop(name: string, extra: string[]): Promise<string> {
    const dir = join(state.dir, name);
    const log = join(state.dir, `${name}.log`);
    const proc = spawnGroup(name, ['standalone', '--port', '0', '--admin-port', '0', '--state-dir', dir, ...extra], log);
    try {
      await waitFor(async () => (existsSync(join(dir, 'lock')) && readFileSync(join(dir, 'lock'), 'utf8').includes('adminUrl') ? true : undefined), 120_000);
      await new Promise((r) => setTimeout(r, 1500)); // the first reconciles of the default host
    } finally {
      await stopGracefully(proc);
    }
    return readFileSync(log, 'utf8');
  }

  it('a fresh start: JSON lines off a terminal, none above info, no stack', async () => {
    const text = await startAndStop('fresh', []);
    const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.level > 30)).toEqual([]);
    expect(text).not.toContain('"stack"');
  }, 180_000);

  it('--log-format text: time, level, component, message, fields', async () => {
    const text = await startAndStop('text', ['--log-format', 'text']);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}\[sqlite-store\] state database opened {2}path=/m);
    expect(text).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}standalone mode ready {2}restUrl=http:\/\/127\.0\.0\.1:\d+ /m);
    expect(text).not.toContain('{"level"');
  }, 180_000);

  it('--log-level debug adds debug lines; warn keeps the info lines out', async () => {
    const debug = await startAndStop('debug', ['--log-level', 'debug']);
    expect(debug).toContain('"level":20');
    const warn = await startAndStop('warn', ['--log-level', 'warn', '--log-format', 'json']);
    expect(warn).not.toContain('"level":30');
    expect(debug).toContain('standalone mode ready');
  }, 180_000);

  it('formats an error with its stack at error level, only its message below', () => {
    const err = { message: 'boom', stack: 'Error: boom\n    at x (y.js:1:1)' };
    expect(formatLine(JSON.stringify({ level: 50, time: 0, msg: 'failed', err }))).toBe('00:00:00.000 ERROR failed\n    Error: boom\n        at x (y.js:1:1)\n');
    expect(formatLine(JSON.stringify({ level: 40, time: 0, msg: 'refused', controller: 'zguest', err, userid: 'A' }))).toBe('00:00:00.000 WARN  [zguest] refused  userid=A  err=boom\n');
  });
});
