/** Renders the chart (helm from the kube toolchain) and the plain manifests (kubectl kustomize). */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';
import { ZvmError } from '../../src/errors.js';
import { resolveKubeBinDir } from '../kube/toolchain.js';
import { CHART_DIR, DEPLOY_DIR } from './sources.js';

const run = promisify(execFile);

export type Manifest = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
};

export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
}

let helmPath: string | undefined;

export async function helmBin(): Promise<string> {
  helmPath ??= join(await resolveKubeBinDir(), 'helm');
  return helmPath;
}

/** Runs a command; a non-zero exit is a result, not an exception. */
export async function exec(cmd: string, args: string[], timeoutMs = 60_000): Promise<CommandResult> {
  try {
    const { stdout, stderr } = await run(cmd, args, { timeout: timeoutMs, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number | string; stdout?: string; stderr?: string; message: string };
    if (typeof e.code !== 'number') throw new ZvmError('UNAVAILABLE', `${cmd} could not run: ${e.message}`, { cause: err });
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

export async function helm(args: string[]): Promise<CommandResult> {
  return exec(await helmBin(), args);
}

export function parseManifests(text: string): Manifest[] {
  return parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length > 0) throw new ZvmError('INVALID_INPUT', `unparsable manifest: ${d.errors[0]?.message}`);
      return d.toJSON() as Manifest | null;
    })
    .filter((m): m is Manifest => m !== null);
}

export interface RenderOptions {
  release?: string;
  namespace?: string;
  /** `--set` assignments, e.g. ['rest.enabled=false'] */
  set?: string[];
  includeCrds?: boolean;
}

/** release, chart, namespace and values of a helm command */
function releaseArgs(o: RenderOptions): string[] {
  return [o.release ?? 'zvm-operator', CHART_DIR, '--namespace', o.namespace ?? 'zvm-system', ...(o.set ?? []).flatMap((s) => ['--set', s])];
}

export async function helmTemplate(o: RenderOptions = {}): Promise<CommandResult> {
  const args = ['template', ...releaseArgs(o)];
  if (o.includeCrds) args.push('--include-crds');
  return helm(args);
}

export async function renderChart(o: RenderOptions = {}): Promise<Manifest[]> {
  const r = await helmTemplate(o);
  if (r.code !== 0) throw new ZvmError('INTERNAL', `helm template failed: ${r.stderr}`);
  return parseManifests(r.stdout);
}

export async function renderDeploy(): Promise<Manifest[]> {
  const r = await exec('kubectl', ['kustomize', DEPLOY_DIR]);
  if (r.code !== 0) throw new ZvmError('INTERNAL', `kubectl kustomize failed: ${r.stderr}`);
  return parseManifests(r.stdout);
}

export function find(manifests: Manifest[], kind: string, name?: string): Manifest {
  const found = manifests.find((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  if (!found) throw new ZvmError('NOT_FOUND', `no ${kind} ${name ?? ''} among ${manifests.map(id).join(', ')}`);
  return found;
}

export function id(m: Manifest): string {
  return `${m.kind}/${m.metadata.namespace ? `${m.metadata.namespace}/` : ''}${m.metadata.name}`;
}

/** The NOTES.txt an install with these values prints (`helm install --dry-run=client`: no cluster needed). */
export async function renderNotes(o: RenderOptions = {}): Promise<string> {
  const r = await helm(['install', ...releaseArgs(o), '--dry-run=client']);
  if (r.code !== 0) throw new ZvmError('INTERNAL', `helm install --dry-run failed: ${r.stderr}`);
  const at = r.stdout.indexOf('\nNOTES:\n');
  if (at < 0) throw new ZvmError('INTERNAL', `helm install --dry-run printed no NOTES:\n${r.stdout.slice(0, 2000)}`);
  return r.stdout.slice(at + '\nNOTES:\n'.length);
}
