// Calls and failures per tool over the last minute, fed by the audit trail
// (one entry per MCP call, refusals included), for the status menu and
// **MCC: Show Metrics**. Pure: the clock is injected. Memory is bounded: per
// tool at most one slot per second of the window, and at most MAX_TOOLS
// tools (calls of further keys, which a client may invent, count as OTHER).
import type { AuditEntry } from '../core/call/audit-entry';

export interface ToolCallStats {
  tool: string;
  calls: number;
  failures: number;
  /** Mean duration of the window's calls, in ms. */
  meanMs: number;
}

/** One second of one tool. */
interface Slot {
  second: number;
  calls: number;
  failures: number;
  totalMs: number;
}

export const WINDOW_MS = 60_000;
export const MAX_TOOLS = 200;
export const OTHER = '(other tools)';

/** A call failed when it was refused or its run did not end with 0 (audit-entry.ts). */
export function failed(entry: Pick<AuditEntry, 'code'>): boolean {
  return entry.code !== 0;
}

export class CallStats {
  /** Per tool, its slots oldest first. */
  private readonly tools = new Map<string, Slot[]>();
  /** The latest second seen: a clock set back counts into it, keeping slots in order. */
  private latest = 0;
  private pruned = 0;

  constructor(private readonly now: () => number = Date.now) {}

  record(entry: Pick<AuditEntry, 'toolKey' | 'code' | 'durationMs'>): void {
    const second = this.second();
    this.prune(second);
    // MAX_TOOLS rows at most, OTHER's included.
    const named = this.tools.size - (this.tools.has(OTHER) ? 1 : 0);
    const tool = this.tools.has(entry.toolKey) || named < MAX_TOOLS - 1 ? entry.toolKey : OTHER;
    const slots = this.tools.get(tool) ?? [];
    if (slots.length === 0) this.tools.set(tool, slots);
    let slot = slots[slots.length - 1];
    if (slot?.second !== second) {
      slot = { second, calls: 0, failures: 0, totalMs: 0 };
      slots.push(slot);
    }
    slot.calls++;
    slot.totalMs += Math.max(0, entry.durationMs);
    if (failed(entry)) slot.failures++;
  }

  /** The last minute per tool, the most called first (then by name). */
  snapshot(): ToolCallStats[] {
    this.prune(this.second());
    const rows = [...this.tools].map(([tool, slots]) => {
      const sum = (f: (s: Slot) => number): number => slots.reduce((n, s) => n + f(s), 0);
      const calls = sum((s) => s.calls);
      return { tool, calls, failures: sum((s) => s.failures), meanMs: calls === 0 ? 0 : sum((s) => s.totalMs) / calls };
    });
    return rows.sort((a, b) => b.calls - a.calls || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
  }

  /** Slots kept in all (for the memory bound's test). */
  get size(): number {
    let n = 0;
    for (const slots of this.tools.values()) n += slots.length;
    return n;
  }

  private second(): number {
    this.latest = Math.max(this.latest, Math.floor(this.now() / 1000));
    return this.latest;
  }

  // Drops the seconds that left the window, and tools left without any (once a second at most).
  private prune(second: number): void {
    if (second === this.pruned) return;
    this.pruned = second;
    const oldest = second - WINDOW_MS / 1000 + 1;
    for (const [tool, slots] of this.tools) {
      let drop = 0;
      while (drop < slots.length && slots[drop].second < oldest) drop++;
      if (drop === slots.length) this.tools.delete(tool);
      else if (drop > 0) slots.splice(0, drop);
    }
  }
}
