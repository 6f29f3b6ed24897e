// Host services the core needs from whoever embeds it (editor, CLI, tests).
// Small on purpose: each host adapts its own facilities to these shapes.

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  debug: () => undefined,
};

export interface Disposable {
  dispose(): void;
}

export type Listener<T> = (event: T) => void;

/** Subscribes a listener; dispose to unsubscribe. */
export type Event<T> = (listener: Listener<T>) => Disposable;

/** A minimal event emitter shaped like vscode.EventEmitter, without vscode. */
export class Emitter<T> implements Disposable {
  private listeners = new Set<Listener<T>>();

  readonly event = (listener: Listener<T>): Disposable => {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  };

  fire(event: T): void {
    for (const l of [...this.listeners]) {
      try {
        l(event);
      } catch {
        // A listener's failure must not break the emitter or other listeners.
      }
    }
  }

  dispose(): void {
    this.listeners.clear();
  }
}
