/**
 * The conversion tests' apiserver: a real kube-apiserver with this version's CRDs for one test file, and
 * one GET to it over its socket with the admin kubeconfig's client certificate (the status, the Warning
 * header that kubectl shows only as its text, the JSON body).
 */
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parse } from 'yaml';
import { startKubeTestEnv, type KubeTestEnv } from '../../kube/harness.js';
import { kubectlOk, type KubectlOptions } from '../../kube/kubectl.js';

export interface CrdSuite {
  readonly env: KubeTestEnv;
  /** kubectl's options as admin, with `input` on stdin */
  opts(input?: string): KubectlOptions;
}

/** Started before the file's tests with crds/ applied and Established, stopped after them. */
export function apiserverWithCrds(): CrdSuite {
  let env: KubeTestEnv | undefined;
  const suite: CrdSuite = {
    get env() {
      if (!env) throw new Error('the apiserver did not start (see beforeAll)');
      return env;
    },
    opts: (input) => ({ kubeconfig: suite.env.adminKubeconfig, timeoutMs: 60_000, input }),
  };
  beforeAll(async () => {
    env = await startKubeTestEnv();
    await kubectlOk(['apply', '-f', 'crds/'], suite.opts());
    await kubectlOk(['wait', '--for=condition=Established', 'crd', '--all', '--timeout=60s'], suite.opts());
  }, 240_000);
  afterAll(async () => {
    await env?.stop();
  });
  return suite;
}

interface Kubeconfig {
  clusters: { cluster: { server: string; 'certificate-authority-data': string } }[];
  users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

export interface RawReply { status: number; warning: string | undefined; body: unknown }

/** Retried on 429 as client-go does (a CRD's storage answers so while it initialises after a CRD change). */
export async function apiserverGet(kubeconfig: string, path: string): Promise<RawReply> {
  for (let attempt = 1; ; attempt++) {
    const reply = await getOnce(kubeconfig, path);
    if (reply.status !== 429 || attempt === 20) return reply;
    await new Promise((r) => setTimeout(r, 500));
  }
}

function getOnce(kubeconfig: string, path: string): Promise<RawReply> {
  const doc = parse(readFileSync(kubeconfig, 'utf8')) as Kubeconfig;
  const data = (b64: string) => Buffer.from(b64, 'base64');
  const { server, 'certificate-authority-data': ca } = doc.clusters[0]!.cluster;
  const user = doc.users[0]!.user;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, server), { ca: data(ca), cert: data(user['client-certificate-data']), key: data(user['client-key-data']), timeout: 10_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (d: string) => { text += d; });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, warning: res.headers.warning, body: text ? JSON.parse(text) : undefined }));
    });
    req.once('timeout', () => req.destroy(new Error(`GET ${path} timed out`)));
    req.once('error', reject);
    req.end();
  });
}
