import { Type } from '@sinclair/typebox';
import { FEILONG_OS_VERSION_PATTERN } from '../api/index.js';
import { StringEnum } from './validation.js';

/** Parameter types of the reference's request schemas (docs/rest-interface.md §1.5). */
export const Userid = Type.String({ minLength: 1, maxLength: 8, pattern: '^[a-zA-Z0-9]{1,8}$', description: 'z/VM userid' });
export const UseridParams = Type.Object({ userid: Userid });
export const Vdev = Type.String({ minLength: 1, maxLength: 4, pattern: '^[0-9a-fA-F]{1,4}$', description: 'virtual device number' });
export const PositiveInteger = Type.Integer({ minimum: 1 });
export const NonNegativeInteger = Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]+$' })]);

export const BOOLEAN_WORDS = [
  'True', 'TRUE', 'true', '1', 'ON', 'On', 'on', 'YES', 'Yes', 'yes',
  'False', 'FALSE', 'false', '0', 'OFF', 'Off', 'off', 'NO', 'No', 'no',
] as const;
export const Bool = Type.Union([Type.Boolean(), StringEnum(BOOLEAN_WORDS)]);

export const FILE_TYPES = ['ext2', 'ext3', 'ext4', 'xfs', 'swap', 'none'] as const;
export const DiskPool = Type.String({ pattern: '^\\w+:\\w+$', description: 'ECKD:<pool> or FBA:<pool>' });
export const MemorySize = Type.String({ pattern: '^[1-9][0-9]{0,3}[mMgG]$', description: '1-4 digits with unit M or G' });
export const Hex16 = Type.String({ minLength: 1, maxLength: 16, pattern: '^[0-9a-fA-F]{1,16}$' });

export const DiskList = Type.Array(
  Type.Object(
    {
      size: Type.String({ description: 'M or G suffix, or cylinders/blocks' }),
      format: Type.Optional(StringEnum(FILE_TYPES)),
      is_boot_disk: Type.Optional(Bool),
      vdev: Type.Optional(Vdev),
      disk_pool: Type.Optional(DiskPool),
    },
    { additionalProperties: false },
  ),
);

export const CreatedDiskOutput = Type.Array(
  Type.Object({
    size: Type.String(),
    is_boot_disk: Type.Optional(Type.Boolean()),
    disk_pool: Type.String(),
    vdev: Type.String(),
    format: Type.Optional(Type.String()),
  }),
);

/** `os_version` (§1.5): feilong's list of releases, letters in any case. */
export const OsVersion = Type.String({ pattern: FEILONG_OS_VERSION_PATTERN });
