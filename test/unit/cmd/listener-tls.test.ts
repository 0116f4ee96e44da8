/** Which listener flags start, which refuse, and what the warning of --insecure-plain-http says. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidInputError } from '../../../src/errors.js';
import { isLoopback, listenerTls, type ListenerTlsOptions } from '../../../src/cmd/listener-tls.js';
import { createLogger } from '../../../src/log.js';

const dir = mkdtempSync(join(tmpdir(), 'zvm-listener-tls-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function selfSigned(name: string): { cert: string; key: string } {
  const pair = { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`) };
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
    '-subj', `/CN=${name}`, '-keyout', pair.key, '-out', pair.cert,
  ], { stdio: 'ignore' });
  return pair;
}

function check(opts: ListenerTlsOptions & { auth: 'token' | 'none' }, binds: string[]) {
  const lines: string[] = [];
  const log = createLogger({ level: 'info' }, { write: (s: string) => lines.push(s) });
  const tls = listenerTls(opts, binds, log);
  return { tls, warnings: lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40).map((l) => l.msg) };
}

describe('listenerTls', () => {
  it.each(['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('counts %s as loopback', (a) => {
    expect(isLoopback(a)).toBe(true);
  });

  it.each(['0.0.0.0', '::', '10.1.2.3', '192.168.0.1', 'zvm.example.com'])('counts %s as a network address', (a) => {
    expect(isLoopback(a)).toBe(false);
  });

  it('refuses token auth in clear on any non-loopback listener, naming it and the ways out', () => {
    expect(() => check({ auth: 'token' }, ['0.0.0.0'])).toThrow(InvalidInputError);
    expect(() => check({ auth: 'token' }, ['127.0.0.1', '::'])).toThrow(
      /^refusing to start: --auth token on :: without TLS sends the admin token and every auth token in clear.*--tls-cert and --tls-key, bind 127\.0\.0\.1, or accept the risk with --insecure-plain-http$/,
    );
  });

  it('starts plain HTTP silently on loopback or without token auth', () => {
    expect(check({ auth: 'token' }, ['127.0.0.1', 'localhost'])).toEqual({ tls: undefined, warnings: [] });
    expect(check({ auth: 'none' }, ['0.0.0.0'])).toEqual({ tls: undefined, warnings: [] });
  });

  it('starts with --insecure-plain-http and warns naming the risk', () => {
    const { tls, warnings } = check({ auth: 'token', insecurePlainHttp: true }, ['0.0.0.0', '127.0.0.1']);
    expect(tls).toBeUndefined();
    expect(warnings).toEqual([expect.stringMatching(/--auth token on 0\.0\.0\.0 without TLS sends the admin token and every auth token in clear.*--insecure-plain-http/)]);
  });

  it('reads a matching pair with TLS 1.2 as the floor, and asks for client certificates only with a client CA', () => {
    const a = selfSigned('a');
    const plain = check({ auth: 'token', tlsCert: a.cert, tlsKey: a.key }, ['0.0.0.0']);
    expect(plain.tls?.https).toMatchObject({ minVersion: 'TLSv1.2' });
    expect(plain.tls?.https.requestCert).toBeUndefined();
    const mtls = check({ auth: 'token', tlsCert: a.cert, tlsKey: a.key, tlsClientCa: a.cert }, ['0.0.0.0']);
    expect(mtls.tls?.https).toMatchObject({ requestCert: true, rejectUnauthorized: false });
    expect(mtls.tls?.files).toEqual({ cert: a.cert, key: a.key, clientCa: a.cert });
  });

  it('refuses flags that do not fit together, unreadable files and a key of another certificate', () => {
    const a = selfSigned('b');
    const c = selfSigned('c');
    expect(() => check({ auth: 'token', tlsCert: a.cert }, ['127.0.0.1'])).toThrow(/--tls-cert and --tls-key go together/);
    expect(() => check({ auth: 'token', tlsClientCa: a.cert }, ['127.0.0.1'])).toThrow(/--tls-client-ca needs --tls-cert/);
    expect(() => check({ auth: 'none', tlsCert: a.cert, tlsKey: a.key, tlsClientCa: a.cert }, ['127.0.0.1'])).toThrow(/--tls-client-ca needs --auth token/);
    expect(() => check({ auth: 'token', tlsCert: join(dir, 'missing.crt'), tlsKey: a.key }, ['127.0.0.1'])).toThrow(/^--tls-cert .*missing\.crt: ENOENT/);
    expect(() => check({ auth: 'token', tlsCert: a.cert, tlsKey: c.key }, ['127.0.0.1'])).toThrow(/--tls-key .*c\.key: .*key values mismatch/);
  });
});
