// What a function tool printed while it ran: reported as run events as it
// comes, and kept (bounded) for the outcome's stdout/stderr.
import type { RunContext } from '../tool-run/contract';
import { DEFAULT_MAX_OUTPUT_BYTES } from '../runner/capped-output';


export class PrintedOutput {
  private readonly parts: Record<'stdout' | 'stderr' | 'all', string[]> = { stdout: [], stderr: [], all: [] };
  private size = 0;
  private cut = 0;

  constructor(
    private readonly ctx: Pick<RunContext, 'runId' | 'events'>,
    private readonly cap = DEFAULT_MAX_OUTPUT_BYTES,
  ) {}

  readonly add = (stream: 'stdout' | 'stderr', data: string): void => {
    if (data === '') return;
    this.ctx.events.emit({ type: 'output', runId: this.ctx.runId, stream, data });
    if (this.size + data.length > this.cap) {
      this.cut += data.length;
      return;
    }
    this.size += data.length;
    this.parts[stream].push(data);
    this.parts.all.push(data);
  };

  /** True when some of what was printed was cut. */
  get truncated(): boolean {
    return this.cut > 0;
  }

  stdout(): string {
    return this.parts.stdout.join('');
  }

  stderr(): string {
    return this.parts.stderr.join('') + this.cutNote();
  }

  /** Both streams in the order they arrived. */
  all(): string {
    return this.parts.all.join('') + this.cutNote();
  }

  private cutNote(): string {
    return this.cut > 0 ? `\n[mcc: ${this.cut} more characters of output were cut]\n` : '';
  }
}
