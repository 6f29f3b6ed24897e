// One output stream of a run, kept up to a byte cap. Everything past the cap
// is still read (and counted) so the child never blocks on a full pipe, but
// only the first maxBytes are kept.
import { StringDecoder } from 'node:string_decoder';

/** Output a run keeps of each stream unless the host sets another cap. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024;

export class CappedOutput {
  private readonly kept: Buffer[] = [];
  private keptBytes = 0;
  private cut = 0;

  constructor(private readonly maxBytes: number) {}

  /** Adds a chunk; returns the part that was kept (to show live), if any. */
  push(chunk: Buffer): Buffer | undefined {
    const room = this.maxBytes - this.keptBytes;
    if (room <= 0) {
      this.cut += chunk.length;
      return undefined;
    }
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.kept.push(part);
    this.keptBytes += part.length;
    this.cut += chunk.length - part.length;
    return part;
  }

  get truncated(): boolean {
    return this.cut > 0;
  }

  get cutBytes(): number {
    return this.cut;
  }

  /** The kept text; a character split by the cap is dropped, not mangled. */
  text(): string {
    const all = Buffer.concat(this.kept);
    if (!this.truncated) return all.toString('utf8');
    return new StringDecoder('utf8').write(all);
  }
}

export function truncationMarker(cutBytes: number): string {
  return `\n[mcc: output truncated, ${formatBytes(cutBytes)} cut]`;
}

/** The truncation marker of a stream, or '' when nothing was cut. */
export function markerOf(out: CappedOutput): string {
  return out.truncated ? truncationMarker(out.cutBytes) : '';
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}
