/**
 * VMRELOCATE (docs/smapi.md §1.9): live guest relocation within an SSI cluster. Plain `kvlist`
 * parameters; on failure the bytes after rc/rs are an error buffer WITHOUT a length: NUL-terminated
 * strings, e.g. rc 4 rs 3000 + "1940 1996 1996 1981\0" (HCP message numbers).
 */

/** action MOVE|TEST|CANCEL; force is a blank-separated subset of ARCHITECTURE DOMAIN STORAGE. */
export type VmrelocateParams = {
  action: string;
  destination?: string;
  force?: string;
  immediate?: string;
  max_total?: string;
  max_quiesce?: string;
};

export type VmrelocateOutput = { error_data?: string[] };
