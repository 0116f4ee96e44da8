/**
 * `zvm-operator plan -f FILE|DIR`: what applying the manifests would change, resource by resource, down
 * to the SMAPI functions, directory statements and CP commands — nothing is written. Exits 0 when
 * nothing would change and 2 when something would (terraform plan -detailed-exitcode), 1 on error.
 * Against standalone the server plans (POST /plan); against a cluster this process does (plan-cluster.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Resource } from '../api/index.js';
import { isHypervisorStep, type DescribedCall } from '../controllers/index.js';
import { InvalidInputError } from '../errors.js';
import { readManifests, request, validateAll, type ServerOpts } from './client.js';
import type { ResourcePlan } from './plan-manifest.js';
import type { ClusterPlanOptions } from './plan-cluster.js';

export const PLAN_EXIT = { unchanged: 0, error: 1, changes: 2 } as const;
/** where the operator keeps the ZHosts' Secrets, as kubectl zvm assumes */
export const DEFAULT_OPERATOR_NAMESPACE = 'zvm-system';

/** A file, or every .yaml/.yml/.json file under a directory (sorted, so the order is stable). */
function manifestFiles(path: string): string[] {
  if (path === '-' || !statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ya?ml|json)$/i.test(f))
    .sort()
    .map((f) => join(path, f));
}

export type PlanOptions = Partial<ServerOpts> & Omit<ClusterPlanOptions, 'operatorNamespace'> & { operatorNamespace?: string; filename: string; output: string };

/** A cluster when one is named (--kubeconfig, --context) or no standalone server is; else the server. */
const onCluster = (opts: PlanOptions) => Boolean(opts.kubeconfig || opts.context || !opts.server);

export async function plan(opts: PlanOptions): Promise<void> {
  if (!['text', 'json'].includes(opts.output)) throw new InvalidInputError(`-o must be text or json, not ${opts.output}`);
  const docs: Resource[] = [];
  for (const file of manifestFiles(opts.filename)) {
    const found = readManifests(file);
    validateAll(found, file); // every file is checked before the first request
    docs.push(...found);
  }
  const plans = onCluster(opts) ? await planOnCluster(opts, docs) : await planOnServer(opts as ServerOpts, docs);
  const changes = plans.filter((p) => p.changes).length;
  process.stdout.write(opts.output === 'json' ? `${JSON.stringify({ changes: changes > 0, resources: plans }, null, 2)}\n` : planText(plans));
  process.exitCode = changes > 0 ? PLAN_EXIT.changes : PLAN_EXIT.unchanged;
}

/** A cluster: this process plans (loaded only here: the Kubernetes client stays out of standalone's path). */
async function planOnCluster(opts: PlanOptions, docs: Resource[]): Promise<ResourcePlan[]> {
  const { planOnCluster: plan } = await import('./plan-cluster.js');
  return plan({ ...opts, operatorNamespace: opts.operatorNamespace ?? DEFAULT_OPERATOR_NAMESPACE }, docs);
}

/** Standalone: its admin API plans each manifest in the server process (POST /plan). */
async function planOnServer(opts: ServerOpts, docs: Resource[]): Promise<ResourcePlan[]> {
  const plans: ResourcePlan[] = [];
  for (const doc of docs) plans.push((await request(opts, 'POST', '/plan', doc)) as ResourcePlan);
  return plans;
}

const LIFECYCLE_WORDS = { live: 'live', atRestart: 'at restart: RestartRequired until the next logon', fixed: 'fixed: refused' } as const;

/** The readable form: per resource its action, the fields it changes, then each step with its calls and what they change. */
export function planText(plans: ResourcePlan[]): string {
  const out: string[] = [];
  for (const p of plans) {
    const name = `${p.kind} ${p.namespace ? `${p.namespace}/` : ''}${p.name}`;
    const g = p.guest;
    const where = g ? ` (host ${g.host}, userid ${g.userid}, ${g.observed ? `on the host, ${g.observed.power}` : 'not on the host'})` : p.plan ? ` (host ${p.plan.host})` : '';
    out.push(`${name}: ${p.action}${where}${p.changes ? '' : ', no changes'}`);
    if (p.note) out.push(`  note: ${p.note}`);
    if (p.fields) out.push(`  fields: ${p.fields.map((f) => `${f.path} (${LIFECYCLE_WORDS[f.lifecycle]})`).join(', ')}`);
    for (const s of g?.steps ?? []) out.push(...stepText(s.step, isHypervisorStep(s.step), s.calls));
    for (const s of p.plan?.steps ?? []) out.push(...stepText(s.step, s.host, s.calls));
    for (const pr of g?.problems ?? []) out.push(`  ! ${pr.reason}: ${pr.message}`);
    for (const pr of p.plan?.problems ?? []) out.push(`  ! ${pr}`);
  }
  const changed = plans.filter((p) => p.changes).length;
  out.push(changed ? `Plan: ${changed} of ${plans.length} resource(s) would change.` : `No changes: ${plans.length} resource(s) match the host.`);
  return `${out.join('\n')}\n`;
}

/** One step, its parameters (a guest's whole definition left out), then the calls it makes. */
function stepText(step: { op: string }, host: boolean, calls: DescribedCall[]): string[] {
  const { op, ...args } = step as { op: string } & Record<string, unknown>;
  const detail = Object.entries(args).filter(([k]) => k !== 'definition').map(([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`);
  return [`  ~ ${op}${detail.length ? ` ${detail.join(' ')}` : ''}${host ? '' : ' (the resource only)'}`, ...calls.flatMap(callText)];
}

function callText(c: DescribedCall): string[] {
  if (c.kind === 'mgmt') return [`      mgmt ${c.op} ${c.target}`, `        $ ${c.command ?? ''}`];
  const params = Object.entries(c.params)
    .filter(([k, v]) => k !== 'image_record_array' && v !== '' && v !== undefined)
    .map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`);
  const lines = [`      SMAPI ${c.function} ${c.target}${params.length ? ` ${params.join(' ')}` : ''}`];
  for (const a of c.directory?.added ?? []) lines.push(`        + ${a}`);
  for (const r of c.directory?.removed ?? []) lines.push(`        - ${r}`);
  if (c.cp) lines.push(`        CP ${c.cp}`);
  return lines;
}
