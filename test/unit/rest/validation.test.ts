import { ClasslessGuestCreateBody, GuestCreateBody } from '../../../src/rest/routes/guests.js';
import { UseridParams } from '../../../src/rest/schemas.js';
import { pyRepr, validateOrThrow } from '../../../src/rest/validation.js';

function messageOf(schema: Parameters<typeof validateOrThrow>[0], data: unknown, part = 'body'): string {
  try {
    validateOrThrow(schema, data, part);
  } catch (err) {
    return (err as Error).message;
  }
  return 'valid';
}

const guest = (g: Record<string, unknown>) => ({ guest: { userid: 'abc', vcpus: 1, memory: 1024, ...g } });

describe('validation messages in the reference wording (docs/rest-interface.md §2.3 A)', () => {
  it.each([
    ['a too long userid', guest({ userid: 'abcdefghij' }), "Invalid input for field/attribute userid. Value: abcdefghij. 'abcdefghij' is too long"],
    ['max_cpu above 64', guest({ max_cpu: 65 }), 'Invalid input for field/attribute max_cpu. Value: 65. 65 is greater than the maximum of 64'],
    ['digit-string vcpus', guest({ vcpus: '2' }), "Invalid input for field/attribute vcpus. Value: 2. '2' is not of type 'integer'"],
    ['zero memory', guest({ memory: 0 }), 'Invalid input for field/attribute memory. Value: 0. 0 is less than the minimum of 1'],
    ['a bad max_mem', guest({ max_mem: '1|' }), "Invalid input for field/attribute max_mem. Value: 1|. '1|' does not match '^[1-9][0-9]{0,3}[mMgG]$'"],
    ['an unknown key', guest({ foo: 1 }), "Invalid input for field/attribute guest. Value: {'userid': 'abc', 'vcpus': 1, 'memory': 1024, 'foo': 1}. Additional properties are not allowed ('foo' was unexpected)"],
    ['a bad disk format', guest({ disk_list: [{ size: '1g', format: 'ntfs' }] }), "Invalid input for field/attribute format. Value: ntfs. 'ntfs' is not one of ['ext2', 'ext3', 'ext4', 'xfs', 'swap', 'none']"],
    ['a top-level failure', {}, "'guest' is a required property"],
  ])('words %s', (_name, body, message) => {
    expect(messageOf(GuestCreateBody, body)).toBe(message);
  });

  it('words a missing memory without a class (checked after the body schema), and needs none with one', () => {
    const body = { guest: { userid: 'abc', vcpus: 1 } };
    expect(messageOf(GuestCreateBody, body)).toBe('valid');
    expect(messageOf(ClasslessGuestCreateBody, body)).toBe("Invalid input for field/attribute guest. Value: {'userid': 'abc', 'vcpus': 1}. 'memory' is a required property");
    expect(messageOf(GuestCreateBody, { guest: { userid: 'abc', class: 'small' } })).toBe('valid');
  });

  it('words path parameters as query parameters', () => {
    expect(messageOf(UseridParams, { userid: 'abc$' }, 'params')).toBe("Invalid input for query parameters userid. Value: abc$. 'abc$' does not match '^[a-zA-Z0-9]{1,8}$'");
  });

  it('accepts a valid create body', () => {
    expect(messageOf(GuestCreateBody, guest({ disk_list: [{ size: '1g', is_boot_disk: 'yes', disk_pool: 'ECKD:p1' }], user_profile: null }))).toBe('valid');
  });

  it('writes values the way Python repr does', () => {
    expect(pyRepr({ a: [true, null, "it's"] })).toBe("{'a': [True, None, 'it\\'s']}");
  });
});
