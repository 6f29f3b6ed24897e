// One-at-a-time per key, in this process: calls with the same key run in
// the order they arrived, calls with other keys are not held up.

export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = before.then(() => mine);
    this.tails.set(key, tail);
    return before.then(fn).finally(() => {
      release();
      // The last one out leaves no entry behind, so idle keys cost nothing.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
  }

  /** Keys with a call running or waiting. */
  get size(): number {
    return this.tails.size;
  }
}
