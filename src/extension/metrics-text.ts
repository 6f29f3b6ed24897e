// The last minute's calls per tool as text: the status menu's lines and the
// small Markdown table **MCC: Show Metrics** opens. Pure, like status-text.ts.
import { escapeControl } from '../core/log-text';
import type { ToolCallStats } from './call-stats-model';

export const SHOW_METRICS_COMMAND = 'mcc.showMetrics';
/** Tools listed in the status menu; the table lists them all. */
export const MENU_TOOLS = 5;

const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;

/** "12 calls · 1 failed · 35 ms", or "no calls". */
export function callSummary(s: Pick<ToolCallStats, 'calls' | 'failures' | 'meanMs'>): string {
  if (s.calls === 0) return 'no calls';
  return `${plural(s.calls, 'call')} · ${s.failures} failed · ${formatMs(s.meanMs)}`;
}

export function formatMs(ms: number): string {
  return ms < 10 ? `${ms.toFixed(1)} ms` : `${Math.round(ms)} ms`;
}

/** The status menu's part: a heading line, the busiest tools, and the command to see all. */
export function metricsMenuItems(stats: readonly ToolCallStats[]): { label: string; description?: string; command: string }[] {
  const total = totals(stats);
  const head = { label: '$(pulse) Last Minute', description: total.calls === 0 ? 'no calls' : callSummary(total), command: SHOW_METRICS_COMMAND };
  const tools = stats.slice(0, MENU_TOOLS).map((s) => ({
    label: `${s.failures > 0 ? '$(warning)' : '$(tools)'} ${s.tool}`,
    description: callSummary(s),
    command: SHOW_METRICS_COMMAND,
  }));
  const more = stats.length > MENU_TOOLS ? [{ label: '$(graph) Show Metrics', description: `${plural(stats.length - MENU_TOOLS, 'more tool')}`, command: SHOW_METRICS_COMMAND }] : [];
  return [head, ...tools, ...more];
}

export function totals(stats: readonly ToolCallStats[]): ToolCallStats {
  const calls = stats.reduce((n, s) => n + s.calls, 0);
  const failures = stats.reduce((n, s) => n + s.failures, 0);
  const ms = stats.reduce((n, s) => n + s.meanMs * s.calls, 0);
  return { tool: '(all tools)', calls, failures, meanMs: calls === 0 ? 0 : ms / calls };
}

/** The Markdown document: when, then one row per tool and a total; columns padded to read as plain text too. */
export function metricsMarkdown(stats: readonly ToolCallStats[], at: Date): string {
  const lines = ['# MCC: calls in the last minute', '', `As of ${at.toISOString().replace('T', ' ').slice(0, 19)} UTC. Run **MCC: Show Metrics** again to refresh.`, ''];
  if (stats.length === 0) return [...lines, 'No calls in the last minute.', ''].join('\n');
  const cells = (s: ToolCallStats): string[] => [cell(s.tool), String(s.calls), String(s.failures), formatMs(s.meanMs)];
  const rows = [['tool', 'calls', 'failures', 'mean duration'], ...stats.map(cells), cells(totals(stats))];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  const line = (r: string[]): string => `| ${r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [...lines, line(rows[0]), rule, ...rows.slice(1).map(line), ''].join('\n');
}

// A tool key is a catalog name (letters, digits, '_', '-', '.'), but a refused
// call's key is whatever the client sent: nothing in it may break the table.
function cell(text: string): string {
  return escapeControl(text).replace(/[\\`*|<>[\]]/g, (c) => `\\${c}`);
}
