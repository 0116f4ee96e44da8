import { Writable } from 'node:stream';
import { createLogger } from '../../src/log.js';

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
