/**
 * What REST owns (README "GitOps with Argo CD", the REST rule): objects REST creates carry the
 * well-known managed-by label and REST writes under its own field manager, so `kubectl get -l` finds
 * them and the apiserver's managedFields tell REST's fields from those of kubectl or Argo CD.
 */
import type { ObjectMeta } from '../api/index.js';

/** The field manager of every REST write. */
export const REST_FIELD_MANAGER = 'zvm-rest';

/** The field manager of `kubectl zvm` spec writes (the imperative verbs, like REST's). */
export const PLUGIN_FIELD_MANAGER = 'kubectl-zvm';

/** The operator's own managers: REST may change what they wrote (the controller, `zvm-operator migrate`, `kubectl zvm`). */
export const OPERATOR_FIELD_MANAGERS = ['zvm-operator', 'zvm-operator-migrate', PLUGIN_FIELD_MANAGER];

export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';

/** Metadata of an object REST creates: marked as REST-owned. */
export function restOwned<M extends ObjectMeta>(meta: M): M {
  return { ...meta, labels: { ...meta.labels, [MANAGED_BY_LABEL]: REST_FIELD_MANAGER } };
}
