// A marker in a child's output stream: the pty's end token (pty-drain.ts)
// and a Python call's fences (fn/python/fence-splitter.ts) are found the same
// way, whatever chunks the stream arrives in.
/**
 * Finds a token in a stream that arrives in chunks: passes on what comes
 * before it (holding back a tail that may be the token's beginning, split
 * across chunks) and nothing after it.
 */
export class TokenScanner {
  private pending = '';
  private seen = false;

  constructor(private readonly token: string) {}

  get found(): boolean {
    return this.seen;
  }

  /** The part of `chunk` that is the tool's output. */
  feed(chunk: string): string {
    if (this.seen) return '';
    const text = this.pending + chunk;
    const at = text.indexOf(this.token);
    if (at >= 0) {
      this.seen = true;
      this.pending = '';
      return text.slice(0, at);
    }
    const keep = this.partialTokenAtEnd(text);
    this.pending = text.slice(text.length - keep);
    return text.slice(0, text.length - keep);
  }

  /** What was held back, when the stream ended without the token. */
  flush(): string {
    const rest = this.seen ? '' : this.pending;
    this.pending = '';
    return rest;
  }

  private partialTokenAtEnd(text: string): number {
    for (let k = Math.min(this.token.length - 1, text.length); k > 0; k--) {
      if (this.token.startsWith(text.slice(text.length - k))) return k;
    }
    return 0;
  }
}
