// How a warm Python process's streams are read, call by call: each call's
// stdout and stderr end at a fence the runner prints (a random token), and
// what comes after it belongs to no call; answers come a line each on fd 3.
// Output past a call's cap is counted, not kept.
import { TokenScanner } from '../../runner/token-scanner';

export const FENCE_SEEN = Symbol('fence');

/** Passes a stream on as it comes, cut at the current call's fence. */
export class FenceSplitter {
  private scanner: TokenScanner | undefined;

  constructor(private readonly emit: (data: string | typeof FENCE_SEEN) => void) {}

  /** A new call: its output runs until this fence. */
  arm(fence: string): void {
    this.scanner = new TokenScanner(fence);
  }

  push(d: string): void {
    const scanner = this.scanner;
    if (!scanner || scanner.found) return; // between calls: dropped
    const before = scanner.feed(d);
    if (before) this.emit(before);
    if (scanner.found) this.emit(FENCE_SEEN); // the rest came after the call
  }
}

export class OutputBuffer {
  private readonly chunks: string[] = [];
  private size = 0;
  private cut = 0;

  constructor(private readonly cap: number) {}

  add(d: string): void {
    if (this.size + d.length <= this.cap) {
      this.chunks.push(d);
      this.size += d.length;
    } else this.cut += d.length;
  }

  text(): string {
    return this.chunks.join('') + (this.cut > 0 ? `\n[... ${this.cut} more characters cut]` : '');
  }
}

/** Hands on a stream's complete lines, one at a time. */
export class LineReader {
  private rest = '';

  constructor(private readonly onLine: (line: string) => void) {}

  push(d: string): void {
    this.rest += d;
    let nl: number;
    while ((nl = this.rest.indexOf('\n')) >= 0) {
      const line = this.rest.slice(0, nl);
      this.rest = this.rest.slice(nl + 1);
      this.onLine(line);
    }
  }
}
