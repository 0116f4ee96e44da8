import type { Resource, ZFcpTemplate, ZVolume } from '../../api/index.js';
import type { KeyMapper } from '../../runtime/result.js';

/**
 * A volume that takes or gives back connections changes the ledgers that count them: the templates its
 * status names, and (for a volume recorded by an earlier release) those whose ledger lists its FCPs.
 */
export function mapVolumeToTemplates(templates: () => ZFcpTemplate[]): KeyMapper {
  return (obj: Resource) => {
    const v = obj as ZVolume;
    const named = new Set((v.status?.connections ?? []).map((c) => c.template));
    const fcps = new Set((v.spec?.fcps ?? []).map((f) => f.toLowerCase()));
    return templates()
      .filter((t) => named.has(t.metadata.name) || (t.status?.fcps ?? []).some((r) => fcps.has(r.fcp)))
      .map((t) => ({ name: t.metadata.name }));
  };
}
