/**
 * What both provider e2e tests do around their envs: kubectl on the test apiserver (started in beforeAll,
 * so reached late) and the cluster the real `clusterctl generate cluster` renders from our md flavor.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { repositoryDir } from '../../../src/capi/render.js';
import type { CapiToolchain } from '../../capi/toolchain.js';
import { kubectlOk } from '../../kube/kubectl.js';
import { REPO, type OperatorEnv } from '../operator/helpers.js';

const run = promisify(execFile);

/** A getter for what beforeAll starts: it says so when beforeAll failed. */
export function started<T>(what: string, get: () => T | undefined): () => T {
  return () => {
    const value = get();
    if (value === undefined) throw new Error(`${what} did not start (see beforeAll)`);
    return value;
  };
}

export interface Kubectl {
  kc(args: string[], input?: string): Promise<string>;
  getJson<T>(args: string[]): Promise<T>;
  apply(...items: unknown[]): Promise<string>;
}

export function kubectlOn(env: () => OperatorEnv): Kubectl {
  const kc = (args: string[], input?: string) => kubectlOk(args, { kubeconfig: env().kubeconfig, input, timeoutMs: 60_000 });
  return {
    kc,
    getJson: async <T>(args: string[]) => JSON.parse(await kc([...args, '-o', 'json'])) as T,
    apply: (...items: unknown[]) => kc(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items })),
  };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Generated = Record<string, any>;

/** The objects of the md flavor for `name` in `namespace`: one control-plane machine, two workers. */
export async function generateCluster(capi: CapiToolchain, o: OperatorEnv, c: { name: string; namespace: string; endpointHost: string }): Promise<Generated[]> {
  const { stdout } = await run(capi.clusterctl, [
    'generate', 'cluster', c.name, '--from', join(REPO, repositoryDir(), 'cluster-template-md.yaml'),
    '--kubernetes-version', 'v1.32.0', '--control-plane-machine-count', '1', '--worker-machine-count', '2', '--target-namespace', c.namespace,
  ], { env: { ...process.env, ZVM_IMAGE: 'rhcos', ZVM_CONTROL_PLANE_ENDPOINT_HOST: c.endpointHost, HOME: o.env.tempDir }, timeout: 60_000 });
  return parseAllDocuments(stdout).map((d) => d.toJSON() as Generated);
}

/** A copy of the generated object of that kind (and name), to change and apply. */
export function findIn(generated: Generated[], kind: string, name?: string): Generated {
  const found = generated.find((g) => g.kind === kind && (!name || (g.metadata as { name: string }).name === name));
  if (!found) throw new Error(`clusterctl generated no ${kind}${name ? ` ${name}` : ''}`);
  return structuredClone(found);
}
