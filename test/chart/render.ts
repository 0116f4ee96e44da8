/** Renders the chart (helm from the kube toolchain) and the plain manifests (kubectl kustomize). */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
function releaseArgs(o: RenderOptions, chart = CHART_DIR): string[] {
  return [o.release ?? 'zvm-operator', chart, '--namespace', o.namespace ?? 'zvm-system', ...(o.set ?? []).flatMap((s) => ['--set', s])];
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

/**
 * NOTES.txt as helm's engine renders it for these values: `helm template` leaves NOTES out and
 * `helm install --dry-run` needs a cluster, so a copy of the chart gets one template that renders
 * NOTES.txt (moved out of templates/) with `tpl`, the same engine and the same named templates.
 */
export async function renderNotes(o: RenderOptions = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'zvm-notes-'));
  try {
    await cp(CHART_DIR, dir, { recursive: true });
    await rename(join(dir, 'templates', 'NOTES.txt'), join(dir, 'notes-under-test.txt'));
    await writeFile(join(dir, 'templates', 'notes-under-test.yaml'), 'notes: {{ tpl (.Files.Get "notes-under-test.txt") . | toJson }}\n');
    const r = await helm(['template', ...releaseArgs(o, dir), '--show-only', 'templates/notes-under-test.yaml']);
    if (r.code !== 0) throw new ZvmError('INTERNAL', `helm template of NOTES.txt failed: ${r.stderr}`);
    return (parseManifests(r.stdout)[0] as unknown as { notes: string }).notes;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
