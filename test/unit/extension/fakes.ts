// Fakes for the extension's pure half: a Memento with asynchronous writes
// (so tests see whether writes are awaited) and a settable clock.
import type { MementoLike } from '../../../src/extension/memento-storage';

export class FakeMemento implements MementoLike {
  readonly data = new Map<string, unknown>();
  updates = 0;
  inFlight = 0;

  keys(): readonly string[] {
    return [...this.data.keys()];
  }

  get<T>(key: string): T | undefined {
    // Workspace state hands out JSON copies, never live objects.
    const v = this.data.get(key);
    return v === undefined ? undefined : (JSON.parse(JSON.stringify(v)) as T);
  }

  update(key: string, value: unknown): Thenable<void> {
    this.updates++;
    this.inFlight++;
    return new Promise<void>((resolve) =>
      setTimeout(() => {
        if (value === undefined) this.data.delete(key);
        else this.data.set(key, JSON.parse(JSON.stringify(value)));
        this.inFlight--;
        resolve();
      }, 5),
    );
  }
}

// The settable clock is shared with the session store's tests.
export { FakeClock } from '../session/helpers';
