import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { InvalidSpecError, type SchemaIssue } from '../errors.js';
import { DEVICE_NUMBER, QUOTE_DEVICE_NUMBER, resourceSchema } from './common.js';
import { KINDS } from './kinds.js';
import { apiVersionOf, kindDefinition, lookupKind } from './kinds.js';

// verbose: errors carry their schema, so a device number given as a number can be explained
const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: false, verbose: true });
const compiled = new Map<string, ValidateFunction>();

function validatorFor(kind: string): ValidateFunction {
  let fn = compiled.get(kind);
  if (!fn) {
    const def = kindDefinition(kind);
    fn = ajv.compile(resourceSchema(def.kind, def.spec, def.status, apiVersionOf(def)));
    compiled.set(kind, fn);
  }
  return fn;
}

function toIssue(e: ErrorObject): SchemaIssue {
  const path = e.instancePath === '' ? '/' : e.instancePath;
  if (e.keyword === 'type' && (e.parentSchema as Record<string, unknown> | undefined)?.[DEVICE_NUMBER]) return { path, message: QUOTE_DEVICE_NUMBER };
  // ajv says "must be equal to constant" (or "to one of the allowed values") without them: name them (an apiVersion, a kind)
  if (e.keyword === 'const') return { path, message: `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}` };
  if (e.keyword === 'enum') return { path, message: `must be ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(' or ')}` };
  const extra = e.keyword === 'additionalProperties' ? ` '${(e.params as { additionalProperty: string }).additionalProperty}'` : '';
  return { path, message: `${e.message ?? 'invalid'}${extra}` };
}

/** Validates a whole resource of a known kind; throws InvalidSpecError naming every schema path. */
export function validateResource(obj: unknown): void {
  const kind = (obj as { kind?: unknown })?.kind;
  const def = typeof kind === 'string' ? lookupKind(kind) : undefined;
  if (!def) {
    throw new InvalidSpecError(`unknown kind ${String(kind)}`, [{ path: '/kind', message: `must be one of ${Object.keys(KINDS).join(', ')}` }]);
  }
  // another project's kind: its own apiserver validates it
  if (def.foreign) return;
  const validate = validatorFor(def.kind);
  const issues = validate(obj) ? crossFieldIssues(def.kind, (obj as { spec: unknown }).spec) : (validate.errors ?? []).map(toIssue);
  if (issues.length > 0) {
    const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
    throw new InvalidSpecError(`invalid ${kind}: ${summary}`, issues);
  }
}

/** The kind's cross-field rules (the CRD's CEL rules), run once the schema holds. */
function crossFieldIssues(kind: string, spec: unknown): SchemaIssue[] {
  const rules = kindDefinition(kind).crossFieldRules ?? [];
  return rules.filter((r) => !(r.holds as (s: unknown) => boolean)(spec)).map((r) => ({ path: r.path, message: r.message }));
}
