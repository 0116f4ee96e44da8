import { parse } from 'yaml';
import { renderCrds } from '../../../src/api/render-crds.js';
import { API_VERSION, validateResource, type ZVswitchSpec } from '../../../src/api/index.js';
import { InvalidSpecError } from '../../../src/errors.js';

const vswitch = (spec: Partial<ZVswitchSpec>) => ({ apiVersion: API_VERSION, kind: 'ZVswitch', metadata: { name: 'vsw1' }, spec });

function issuesOf(spec: Partial<ZVswitchSpec>): string[] {
  try {
    validateResource(vswitch(spec));
    return [];
  } catch (err) {
    if (!(err instanceof InvalidSpecError)) throw err;
    return err.issues.map((i) => `${i.path}: ${i.message}`);
  }
}

describe('ZVswitch schema and cross-field rules', () => {
  it.each([
    ['the defaults', {}],
    ['an IP switch with a router', { networkType: 'IP', router: 'PRIROUTER' }],
    ['NONROUTER with the default ETHERNET', { router: 'NONROUTER' }],
    ['NONROUTER with explicit ETHERNET', { networkType: 'ETHERNET', router: 'NONROUTER' }],
    ['three real devices', { rdev: '1000 2000 3000' }],
    ['a VLAN-aware switch with a default VLAN', { vid: '4094', nativeVid: 1, portType: 'TRUNK', gvrp: 'NOGVRP' }],
    ['users with -1 and 1-4094 VLAN ids', { vid: 'AWARE', authorizedUsers: [{ userid: 'LINUX01', vlanIds: [-1] }, { userid: 'LINUX02', vlanIds: [1, 4094] }] }],
  ] as [string, Partial<ZVswitchSpec>][])('accepts %s', (_name, spec) => {
    expect(issuesOf(spec)).toEqual([]);
  });

  it.each([
    ['PRIROUTER with the default ETHERNET', { router: 'PRIROUTER' }, '/spec/router: router PRIROUTER is not allowed'],
    ['router with explicit ETHERNET', { networkType: 'ETHERNET', router: 'PRIROUTER' }, '/spec/router'],
    ['vid 4095', { vid: '4095' }, '/spec/vid'],
    ['vid 0', { vid: '0' }, '/spec/vid'],
    ['queueMem 9', { queueMem: 9 }, '/spec/queueMem'],
    ['nativeVid 4095', { nativeVid: 4095 }, '/spec/nativeVid'],
    ['four real devices', { rdev: '1000 2000 3000 4000' }, '/spec/rdev'],
    ['a user VLAN id 0', { authorizedUsers: [{ userid: 'LINUX01', vlanIds: [0] }] }, '/spec/authorizedUsers: a user VLAN id is -1 or 1-4094'],
    ['a user VLAN id 4095', { authorizedUsers: [{ userid: 'LINUX01', vlanIds: [4095] }] }, '/spec/authorizedUsers/0/vlanIds/0'],
    ['a user authorized twice', { authorizedUsers: [{ userid: 'LINUX01' }, { userid: 'LINUX01' }] }, 'each userid is authorized once'],
  ] as [string, Partial<ZVswitchSpec>, string][])('refuses %s', (_name, spec, expected) => {
    expect(issuesOf(spec).join('\n')).toContain(expected);
  });

  it('puts the same rules into the CRD as CEL validations, with immutable create parameters', () => {
    const crd = parse(renderCrds().get('zvm.dev_zvswitches.yaml')!) as { spec: { names: { shortNames: string[] }; scope: string; versions: { schema: { openAPIV3Schema: { properties: { spec: { 'x-kubernetes-validations': { rule: string; message: string }[] } } } } }[] } };
    expect(crd.spec.names.shortNames).toEqual(['zvs']);
    expect(crd.spec.scope).toBe('Cluster');
    const rules = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec['x-kubernetes-validations'];
    expect(rules.map((r) => r.rule)).toContain("!has(self.router) || self.router == 'NONROUTER' || (has(self.networkType) && self.networkType == 'IP')");
    expect(rules.some((r) => r.message === 'rdev is immutable')).toBe(true);
  });
});
