/**
 * Kubeconfig files for the test environment. Certificates are embedded (`*-data`), so a file is
 * self-contained and can be handed to kubectl, @kubernetes/client-node or the operator process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import type { CertPair } from './pki.js';

export interface KubeconfigUser {
  /** Context and user name inside the kubeconfig (e.g. `admin`, `operator`). */
  name: string;
  credentials: CertPair;
}

async function b64(path: string): Promise<string> {
  return (await readFile(path)).toString('base64');
}

/** Writes a kubeconfig for `server` with one context per user; the first user is the current context. */
export async function writeKubeconfig(path: string, server: string, caCert: string, users: KubeconfigUser[]): Promise<void> {
  const cluster = 'zvm-test';
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: cluster, cluster: { server, 'certificate-authority-data': await b64(caCert) } }],
    users: await Promise.all(users.map(async (u) => ({
      name: u.name,
      user: {
        'client-certificate-data': await b64(u.credentials.cert),
        'client-key-data': await b64(u.credentials.key),
      },
    }))),
    contexts: users.map((u) => ({ name: u.name, context: { cluster, user: u.name, namespace: 'default' } })),
    'current-context': users[0]?.name ?? '',
    preferences: {},
  };
  await writeFile(path, stringify(doc), { mode: 0o600 });
}
