/**
 * Pure: the directory entry after a recorded (unsent) write, so that a later read in the same dry run
 * sees what the host would then hold (a resize rewrites the entry it read after the CPU change).
 * Covers the edits a guest plan makes before a read; other writes leave the lines as they were.
 */
import type { SmapiParams } from '../smapi/types.js';
import { withKeywordUpdates, withoutKeywordCpus } from './directory-edits.js';

/** A list parameter or output field; the recorded calls are untyped (the SmapiCaller seam). */
export function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.map(String) : [];
}

export function predictDirectory(fn: string, p: SmapiParams, before: string[] | undefined): string[] | undefined {
  switch (fn) {
    case 'Image_Create_DM':
    case 'Image_Replace_DM':
      return stringsOf(p.image_record_array).map((l) => l.trimEnd());
    case 'Image_Delete_DM':
      return undefined;
    case 'Image_Definition_Update_DM':
      return before && withKeywordUpdates(before, stringsOf(p.definition_update_directory_keyword_parameter_list));
    case 'Image_Definition_Delete_DM':
      return before && withoutKeywordCpus(before, stringsOf(p.definition_delete_directory_keyword_parameter_list));
    default:
      return before;
  }
}
