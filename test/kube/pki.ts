/**
 * A throw-away PKI for the test kube-apiserver, made with the openssl CLI (node:crypto cannot
 * issue X.509 certificates without another dependency). EC P-256 keys keep generation fast.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ZvmError } from '../../src/errors.js';

const run = promisify(execFile);

export interface CertPair {
  cert: string;
  key: string;
}

export interface ClientIdentity {
  user: string;
  groups: string[];
}

export interface TestPki {
  caCert: string;
  caKey: string;
  serving: CertPair;
  /** Client certificates by the name they were asked for under (e.g. `admin`, `operator`). */
  clients: Record<string, CertPair & ClientIdentity>;
  /** Service-account token signing key (private) and verification key (public). */
  serviceAccountKey: string;
  serviceAccountPub: string;
}

async function openssl(args: string[]): Promise<void> {
  try {
    await run('openssl', args, { timeout: 30_000 });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new ZvmError('INTERNAL', `openssl ${args[0]} failed: ${stderr || (err as Error).message}`, { cause: err });
  }
}

async function ecKey(path: string): Promise<void> {
  await openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', path]);
}

/** Distinguished name in openssl's `/CN=…/O=…` form; one O per group (Kubernetes reads groups from O). */
function subject(cn: string, groups: string[] = []): string {
  return `/CN=${cn}${groups.map((g) => `/O=${g}`).join('')}`;
}

export async function issue(dir: string, name: string, subj: string, ext: string, ca: CertPair): Promise<CertPair> {
  const key = join(dir, `${name}.key`);
  const csr = join(dir, `${name}.csr`);
  const cert = join(dir, `${name}.crt`);
  const extFile = join(dir, `${name}.ext`);
  await ecKey(key);
  await openssl(['req', '-new', '-key', key, '-subj', subj, '-out', csr]);
  await writeFile(extFile, ext);
  await openssl([
    'x509', '-req', '-in', csr, '-CA', ca.cert, '-CAkey', ca.key, '-CAcreateserial',
    '-days', '2', '-sha256', '-extfile', extFile, '-out', cert,
  ]);
  return { cert, key };
}

/** Writes a CA, a loopback serving certificate, the given client certificates and an SA key pair into `dir`. */
export async function createTestPki(dir: string, clients: Record<string, ClientIdentity>): Promise<TestPki> {
  const ca: CertPair = { cert: join(dir, 'ca.crt'), key: join(dir, 'ca.key') };
  await ecKey(ca.key);
  await openssl([
    'req', '-x509', '-new', '-key', ca.key, '-subj', '/CN=zvm-operator-test-ca', '-days', '2', '-sha256',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
    '-out', ca.cert,
  ]);
  const serving = await issue(dir, 'apiserver', subject('kube-apiserver'), [
    'basicConstraints=critical,CA:FALSE',
    'keyUsage=critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage=serverAuth',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc',
    '',
  ].join('\n'), ca);
  const clientExt = 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=clientAuth\n';
  const issued: TestPki['clients'] = {};
  for (const [name, id] of Object.entries(clients)) {
    const pair = await issue(dir, `client-${name}`, subject(id.user, id.groups), clientExt, ca);
    issued[name] = { ...pair, ...id };
  }
  const serviceAccountKey = join(dir, 'sa.key');
  const serviceAccountPub = join(dir, 'sa.pub');
  await openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', serviceAccountKey]);
  await openssl(['pkey', '-in', serviceAccountKey, '-pubout', '-out', serviceAccountPub]);
  return { caCert: ca.cert, caKey: ca.key, serving, clients: issued, serviceAccountKey, serviceAccountPub };
}
