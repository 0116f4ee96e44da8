import { applyMergePatch, copyJson, copyPlainJson, jsonEqual } from '../../../src/store/common/json.js';

describe('RFC 7386 merge patch', () => {
  it.each([
    ['replaces a member', { a: 'b' }, { a: 'c' }, { a: 'c' }],
    ['adds a member', { a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    ['deletes a member set to null', { a: 'b' }, { a: null }, {}],
    ['keeps siblings when deleting', { a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    ['replaces an array wholesale', { a: ['b'] }, { a: 'c' }, { a: 'c' }],
    ['replaces a scalar with an array', { a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    ['merges nested objects', { a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    ['replaces an array of objects', { a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    ['builds objects for a missing target', {}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
    ['replaces a non-object target', { a: 'x' }, { a: { b: 1 } }, { a: { b: 1 } }],
  ])('%s', (_label, target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('never mutates the target or the patch', () => {
    const target = { a: { b: 1 }, list: [1] };
    const patch = { a: { c: 2 }, list: [2] };
    const result = applyMergePatch(target, patch) as { a: Record<string, number>; list: number[] };
    result.a.c = 99;
    result.list.push(3);
    expect(target).toEqual({ a: { b: 1 }, list: [1] });
    expect(patch).toEqual({ a: { c: 2 }, list: [2] });
  });
});

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 }, true],
    [{ a: 1, b: undefined }, { a: 1 }, true],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: 1 }, { a: '1' }, false],
    [{ a: {} }, { a: [] }, false],
    [null, {}, false],
  ])('compares %j and %j as %s', (a, b, expected) => {
    expect(jsonEqual(a, b)).toBe(expected);
  });
});

describe('copyPlainJson', () => {
  it('copies a plain JSON value as a JSON round trip does, sharing nothing with it', () => {
    const value = { a: { b: [1, { c: 'd' }, null] }, e: true, f: undefined, g: [[2]] };
    const copy = copyPlainJson(value);
    expect(copy).toEqual(copyJson(value));
    expect(Object.keys(copy)).toEqual(['a', 'e', 'g']);
    copy.a.b.push(3);
    (copy.a.b[1] as { c: string }).c = 'changed';
    copy.g[0].push(4);
    expect(value).toEqual({ a: { b: [1, { c: 'd' }, null] }, e: true, f: undefined, g: [[2]] });
  });

  it('returns scalars and null as they are', () => {
    for (const v of [0, 'x', false, null, undefined]) expect(copyPlainJson(v)).toBe(v);
  });
});
