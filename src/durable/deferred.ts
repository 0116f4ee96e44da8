/** A promise with its settle functions (Promise.withResolvers needs Node 22; the machines run 20). */
export interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
