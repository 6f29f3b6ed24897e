// Rendering a tool's command templates: the real text that runs, and the
// text events show, where override values (secrets) are masked.
import type { ExecTool } from '../catalog/types';
import { renderTemplate, TemplateError } from '../template/render';
import { ToolInputError } from '../tool-run/errors';

export function render(template: string, params: Record<string, unknown>, what: string): string {
  const nul = paramWithNul(params);
  if (nul) throw new ToolInputError(`parameter '${nul}' contains a NUL byte, which no shell command or argument can carry`);
  try {
    return renderTemplate(template, params);
  } catch (e) {
    if (e instanceof TemplateError) throw new ToolInputError(`${what} template: ${e.message}`);
    throw e;
  }
}

function paramWithNul(params: Record<string, unknown>): string | undefined {
  const has = (v: unknown): boolean => (typeof v === 'string' ? v.includes('\0') : Array.isArray(v) ? v.some(has) : false);
  return Object.keys(params).find((k) => has(params[k]));
}

/** The command that runs and the command events show, rendered once when no override value is given. */
export function renderCommand(tool: ExecTool, params: Record<string, unknown>): { command: string; shown: string } {
  const command = render(tool.command, params, 'command');
  const masked = tool.params.some((p) => p.hasOverride && p.name in params);
  return { command, shown: masked ? shownCommand(tool, params) : command };
}

/** The command as events show it: every override param's value as ***. */
export function shownCommand(tool: ExecTool, params: Record<string, unknown>): string {
  const overrides = tool.params.filter((p) => p.hasOverride && p.name in params);
  const masked: Record<string, unknown> = { ...params };
  for (const o of overrides) masked[o.name] = '***';
  try {
    return renderTemplate(tool.command, masked);
  } catch {
    // A template that needs the real value's type (a loop, arithmetic):
    // show the real rendering with each override's text blotted out.
    try {
      let text = renderTemplate(tool.command, params);
      for (const o of overrides) {
        const v = params[o.name];
        const s = typeof v === 'string' ? v : JSON.stringify(v);
        if (s) text = text.split(s).join('***');
      }
      return text;
    } catch {
      return tool.command;
    }
  }
}
