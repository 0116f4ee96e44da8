import { Type } from '@sinclair/typebox';
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

/** Regex of `os_version` (§1.5), case-insensitive letters. */
export const OsVersion = Type.String({
  pattern:
    '^([rR][hH][eE][lL](6|7|8|9|10)(\\.\\d{1,2})?|[rR][eE][dD][hH][aA][tT](6|7)(\\.\\d{1,2})?|[sS][lL][eE][sS](11|12|15)((\\.|[sS][pP])\\d)?|[sS][uU][sS][eE](11|12|15)((\\.|[sS][pP])\\d)?|[uU][bB][uU][nN][tT][uU](16|20|22|24|25)(\\.\\d\\d)?(\\.\\d)?|[rR][hH][cC][oO][sS]4(\\.\\d{1,2})?(\\.\\d{1,2})?)$',
});
