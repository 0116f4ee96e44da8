import { kindDefinition } from '../../../src/api/index.js';
import { parseOutput, parseTemplate, render, renderTemplate } from '../../../src/cmd/client-output.js';
import { evalJsonPath, evalJsonPathAll } from '../../../src/cmd/json-path.js';
import { InvalidInputError } from '../../../src/errors.js';
import { aGuest } from '../../builders/zguest.js';

const ZGUEST = kindDefinition('ZGuest');
const ready = (status: string) => [{ type: 'Ready', status, reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }];
const guests = [
  aGuest({ userid: 'LINUX01' }, { name: 'a', status: { powerState: 'on', phase: 'Running', conditions: ready('True'), progress: { summary: 'deploy: 50%' } } as never }),
  aGuest({ userid: 'LINUX02' }, { name: 'b', namespace: 'team', status: { powerState: 'off', phase: 'Stopped', conditions: ready('False') } as never }),
];
const list = { single: false, namespaceColumn: true };

describe('get -o', () => {
  it('refuses an unknown format, naming the ones it knows', () => {
    expect(() => parseOutput('banana')).toThrow(InvalidInputError);
    expect(() => parseOutput('banana')).toThrow('unknown output format "banana": use one of table, wide, yaml, json, name, jsonpath=<template>');
    expect(() => parseOutput('jsonpath')).toThrow(/unknown output format/);
  });

  it('prints the priority-0 columns as the table and every column with wide', () => {
    const table = render(parseOutput('table'), ZGUEST, guests, list).split('\n');
    expect(table[0]).toMatch(/^NAMESPACE\s+NAME\s+USERID\s+HOST\s+CLASS\s+POWER\s+CPUS\s+MEMORY\s+RESTART\s+PHASE\s+READY\s+REASON$/);
    expect(table[1]).toMatch(/^default\s+a\s+LINUX01\s+on\s+Running\s+True\s+R$/);
    const wide = render(parseOutput('wide'), ZGUEST, guests, list).split('\n');
    expect(wide[0]).toMatch(/PHASE\s+PROGRESS\s+READY\s+REASON$/);
    expect(wide[1]).toMatch(/Running\s+deploy: 50%\s+True\s+R$/);
    expect(wide[2]).toMatch(/^team\s+b\s+LINUX02\s+off\s+Stopped\s+False\s+R$/);
  });

  it('prints kind.group/name lines with name', () => {
    expect(render(parseOutput('name'), ZGUEST, guests, list)).toBe('zguest.zvm.dev/a\nzguest.zvm.dev/b\n');
  });

  it('prints one object as itself and several as a v1 List in json and yaml', () => {
    expect(JSON.parse(render(parseOutput('json'), ZGUEST, guests.slice(0, 1), { ...list, single: true }))).toMatchObject({ kind: 'ZGuest', metadata: { name: 'a' } });
    expect(JSON.parse(render(parseOutput('json'), ZGUEST, guests, list))).toMatchObject({ apiVersion: 'v1', kind: 'List', items: [{ metadata: { name: 'a' } }, { metadata: { name: 'b' } }] });
    expect(render(parseOutput('yaml'), ZGUEST, guests, list)).toMatch(/^apiVersion: v1\nkind: List\n/);
  });

  it('fills a jsonpath template from the object or the List', () => {
    const out = render(parseOutput('jsonpath={range .items[*]}{.metadata.name}{"\\t"}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}'), ZGUEST, guests, list);
    expect(out).toBe('a\tTrue\nb\tFalse\n');
    expect(render(parseOutput('jsonpath={.items[*].spec.userid}'), ZGUEST, guests, list)).toBe('LINUX01 LINUX02');
    expect(render(parseOutput('jsonpath=userid={.spec.userid} cpus={.spec.vcpus}'), ZGUEST, guests.slice(0, 1), { ...list, single: true })).toBe('userid=LINUX01 cpus=2');
    expect(render(parseOutput('jsonpath={.metadata.labels}'), ZGUEST, guests.slice(0, 1), { ...list, single: true })).toBe('');
    expect(render(parseOutput('jsonpath={.spec}'), ZGUEST, guests.slice(0, 1), { ...list, single: true })).toBe('{"userid":"LINUX01","vcpus":2,"memory":"2G"}');
  });

  it.each([
    ['{.metadata.name', /no } for the \{ at 0/],
    ['{range .items[*]}{.a}', /\{range\} without \{end\}/],
    ['{end}', /\{end\} without \{range\}/],
    ['{metadata.name}', /"metadata.name" is not a path/],
    ['{"unterminated}', /no } for the/],
  ])('refuses the template %s', (template, message) => {
    expect(() => parseTemplate(template)).toThrow(InvalidInputError);
    expect(() => parseTemplate(template)).toThrow(message);
  });
});

describe('JSONPath', () => {
  const obj = { a: { 'b.c': 1, list: [{ k: 'x', v: 1 }, { k: 'y', v: 2 }, { k: 'x', v: 3 }] } };

  it('walks fields, indexes, wildcards, quoted keys and filters', () => {
    expect(evalJsonPathAll(obj, '.a.list[*].v')).toEqual([1, 2, 3]);
    expect(evalJsonPathAll(obj, '.a.list[?(@.k=="x")].v')).toEqual([1, 3]);
    expect(evalJsonPath(obj, '.a.list[?(@.k=="x")].v')).toBe(1);
    expect(evalJsonPathAll(obj, ".a['b.c']")).toEqual([1]);
    expect(evalJsonPathAll(obj, '.a.list[-1].v')).toEqual([3]);
    expect(evalJsonPathAll(obj, '$.a.list[1].k')).toEqual(['y']);
    expect(evalJsonPathAll(obj, '.a.missing.deeper')).toEqual([]);
    expect(evalJsonPathAll(obj, '.a.list.k')).toEqual([]);
  });

  it('renders matches kubectl-style: strings bare, other values as JSON', () => {
    expect(renderTemplate(parseTemplate('{.a.list[0]} {@.a.list[*].k}'), obj)).toBe('{"k":"x","v":1} x y x');
  });
});
