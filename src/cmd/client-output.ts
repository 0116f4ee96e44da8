/**
 * `get -o …` as kubectl prints it: the table (printer columns of priority 0), `wide` (all of them),
 * `yaml`/`json` (one object, or a v1 List), `name` (kind.group/name) and `jsonpath=<template>`.
 * Pure: the client fetches, these turn resources into text.
 */
import { stringify } from 'yaml';
import { GROUP, type KindDefinition, type Resource } from '../api/index.js';
import { InvalidInputError } from '../errors.js';
import { evalJsonPath, evalJsonPathAll } from './json-path.js';

export const OUTPUT_FORMATS = ['table', 'wide', 'yaml', 'json', 'name', 'jsonpath=<template>'];

type Template = ({ text: string } | { expr: string } | { range: string; body: Template })[];
export type Output = { format: 'table' | 'wide' | 'yaml' | 'json' | 'name' } | { format: 'jsonpath'; template: Template };

export function parseOutput(value: string): Output {
  if (value.startsWith('jsonpath=')) return { format: 'jsonpath', template: parseTemplate(value.slice('jsonpath='.length)) };
  if (value === 'table' || value === 'wide' || value === 'yaml' || value === 'json' || value === 'name') return { format: value };
  throw new InvalidInputError(`unknown output format "${value}": use one of ${OUTPUT_FORMATS.join(', ')}`);
}

/** `kind.group/name`, what `apply`, `delete` and `-o name` print. */
export function resourceName(def: KindDefinition, name: string): string {
  return `${def.singular}.${GROUP}/${name}`;
}

/** One object as it is, several as kubectl's `{apiVersion: v1, kind: List, items}` (what jsonpath templates address). */
export function asDocument(items: Resource[], single: boolean): unknown {
  return single ? items[0] : { apiVersion: 'v1', kind: 'List', metadata: {}, items };
}

/** The whole output of `get` (without -w) in this format. */
export function render(output: Output, def: KindDefinition, items: Resource[], o: { single: boolean; namespaceColumn: boolean }): string {
  switch (output.format) {
    case 'json':
      return `${JSON.stringify(asDocument(items, o.single), null, 2)}\n`;
    case 'yaml':
      return stringify(asDocument(items, o.single));
    case 'name':
      return items.map((i) => `${resourceName(def, i.metadata.name)}\n`).join('');
    case 'jsonpath':
      return renderTemplate(output.template, asDocument(items, o.single));
    default:
      return tableOf(def, items, { wide: output.format === 'wide', namespaceColumn: o.namespaceColumn }).map((row) => `${row}\n`).join('');
  }
}

export interface TableShape {
  wide: boolean;
  /** a NAMESPACE column first (a namespaced kind listed across namespaces) */
  namespaceColumn: boolean;
}

/** Header and cells, unpadded; `formatRows` aligns them. */
export function tableCells(def: KindDefinition, items: Resource[], shape: TableShape): { header: string[]; rows: string[][] } {
  const columns = [{ name: 'NAME', jsonPath: '.metadata.name' }, ...def.printerColumns.filter((c) => c.name !== 'Age' && (shape.wide || !c.priority))];
  if (shape.namespaceColumn) columns.unshift({ name: 'NAMESPACE', jsonPath: '.metadata.namespace' });
  return {
    header: columns.map((c) => c.name.toUpperCase()),
    rows: items.map((item) => columns.map((c) => String(evalJsonPath(item, c.jsonPath) ?? ''))),
  };
}

export function tableOf(def: KindDefinition, items: Resource[], shape: TableShape): string[] {
  const { header, rows } = tableCells(def, items, shape);
  return formatRows([header, ...rows]);
}

/** Columns three spaces apart, each as wide as its widest cell (kubectl's tabwriter layout). */
export function formatRows(rows: string[][], widths = columnWidths(rows)): string[] {
  return rows.map((row) => row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('   ').trimEnd());
}

export function columnWidths(rows: string[][]): number[] {
  return rows[0]?.map((_, i) => Math.max(...rows.map((r) => r[i]?.length ?? 0))) ?? [];
}

/** `{.path}`, `{"literal"}`, `{range .path}…{end}` and text between them. */
export function parseTemplate(source: string): Template {
  const stack: Template[] = [[]];
  const bad = (why: string) => new InvalidInputError(`bad jsonpath template ${JSON.stringify(source)}: ${why}`);
  let at = 0;
  while (at < source.length) {
    const open = source.indexOf('{', at);
    const top = stack[stack.length - 1]!;
    if (open < 0) {
      top.push({ text: source.slice(at) });
      break;
    }
    if (open > at) top.push({ text: source.slice(at, open) });
    const close = closingBrace(source, open);
    if (close < 0) throw bad(`no } for the { at ${open}`);
    const inner = source.slice(open + 1, close).trim();
    at = close + 1;
    if (inner.startsWith('"')) {
      top.push({ text: literal(inner, bad) });
    } else if (inner === 'end') {
      if (stack.length === 1) throw bad('{end} without {range}');
      stack.pop();
    } else if (inner.startsWith('range ')) {
      const body: Template = [];
      top.push({ range: inner.slice('range '.length), body });
      stack.push(body);
    } else if (/^[.@$]/.test(inner)) {
      top.push({ expr: inner });
    } else {
      throw bad(`"${inner}" is not a path (start it with .)`);
    }
  }
  if (stack.length > 1) throw bad('{range} without {end}');
  return stack[0]!;
}

function closingBrace(source: string, open: number): number {
  let quoted = false;
  for (let i = open + 1; i < source.length; i++) {
    const c = source[i];
    if (quoted && c === '\\') i++;
    else if (c === '"') quoted = !quoted;
    else if (c === '}' && !quoted) return i;
  }
  return -1;
}

function literal(inner: string, bad: (why: string) => Error): string {
  try {
    return JSON.parse(inner) as string;
  } catch {
    throw bad(`${inner} is not a quoted string`);
  }
}

/** kubectl's printing: strings as they are, other values as JSON, several matches space-separated. */
export function renderTemplate(template: Template, data: unknown): string {
  return template.map((node) => {
    if ('text' in node) return node.text;
    if ('expr' in node) return evalJsonPathAll(data, node.expr).map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(' ');
    return evalJsonPathAll(data, node.range).map((item) => renderTemplate(node.body, item)).join('');
  }).join('');
}
