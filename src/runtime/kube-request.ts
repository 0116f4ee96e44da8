import { Observable, PatchStrategy, setHeaderOptions, type ConfigurationOptions, type ObservableMiddleware } from '@kubernetes/client-node';

/**
 * Per-call options for client-node's generated APIs: the caller's AbortSignal (client-node sets no
 * timeout of its own), and optionally the merge-patch content type (its default is JSON patch).
 */
export function callOptions(signal: AbortSignal, mergePatch = false): ConfigurationOptions<ObservableMiddleware> {
  const withSignal: ConfigurationOptions<ObservableMiddleware> = {
    middleware: [
      {
        pre(context) {
          context.setSignal(signal);
          return new Observable(Promise.resolve(context));
        },
        post: (response) => new Observable(Promise.resolve(response)),
      },
    ],
    middlewareMergeStrategy: 'append',
  };
  return mergePatch ? setHeaderOptions('Content-Type', PatchStrategy.MergePatch, withSignal) : withSignal;
}
