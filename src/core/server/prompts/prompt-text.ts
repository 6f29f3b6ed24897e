// The text of the three prompts MCC offers (find_and_run, explain_tool,
// debug_error), written for this catalog and this caller: which tools they
// can reach and how (search/execute or direct tools), which session values
// are already set. Pure, so the wording is tested without a server.
import { directToolName } from '../../catalog/direct-names';
import { formatSignature } from '../../catalog/signature';
import type { ToolDef } from '../../catalog/types';
import type { Exposure } from '../../expose';

export interface PromptSetting {
  /** Tools the caller may run, sorted by key. */
  tools: readonly ToolDef[];
  show: Exposure;
  /** Names of the session variables already set (identity keys excluded). */
  sessionVars: string[];
}

/** How to call one tool, in the form the caller has. */
function callOf(tool: ToolDef, show: Exposure): string {
  const direct = `the tool \`${directToolName(tool.key)}\` with its parameters as arguments`;
  const execute = `\`execute(key="${tool.key}", params={...})\``;
  if (show.catalogTools && show.directTools) return `${execute}, or ${direct}`;
  return show.catalogTools ? execute : direct;
}

function groupsOf(tools: readonly ToolDef[]): string {
  const groups = [...new Set(tools.flatMap((t) => t.groups))].sort();
  return groups.length ? ` (groups: ${groups.join(', ')})` : '';
}

function sessionLines(s: PromptSetting): string[] {
  const set = s.sessionVars.length ? `Already set in this session: ${s.sessionVars.join(', ')}.` : 'Nothing is set in this session yet.';
  return [
    'Session store: a value later steps need (a host, an id, a budget) is stored once with `set_session(name, value)` and read with ' +
      '`get_session(name)`; every tool run in this session receives it (shell tools as `$MCC_CTX_<NAME>`, function tools in their ' +
      `\`context\`), so it need not be passed again. ${set} The identity keys user, email, groups and tools are read-only.`,
  ];
}

function findLines(s: PromptSetting): string[] {
  if (s.show.catalogTools) {
    return [
      '1. Find the tool: call `search(query="...")` with a few keywords from the task. Each hit is a signature: ' +
        '`## key (param:type, param:type=default) -> returns`, one line per parameter, then the description. ' +
        `If nothing fits, \`describe_tools()\` lists all ${s.tools.length} tools you can run${groupsOf(s.tools)}.`,
      `2. Run it: ${s.show.directTools ? 'call `execute(key="<key>", params={...})`, or the tool named after the key with each "." written "__"' : 'call `execute(key="<key>", params={...})`'}, ` +
        'with the parameters its signature lists; those without "=default" are required.',
    ];
  }
  const listed = s.tools.slice(0, 40).map((t) => `- \`${directToolName(t.key)}\`: ${t.description.trim().split('\n')[0] || t.key}`);
  return [
    `1. Find the tool: each of the ${s.tools.length} catalog tools you can run is a tool of its own, named after its key with each "." written "__":`,
    ...listed,
    ...(s.tools.length > listed.length ? [`- … and ${s.tools.length - listed.length} more in your tool list.`] : []),
    '2. Run it with the parameters its input schema lists.',
  ];
}

export function findAndRunText(task: string, s: PromptSetting): string {
  if (s.tools.length === 0) {
    return `Task: ${task}\n\nThe MCC catalog has no tool you can run, so this task cannot be done with it. Say so, and do not invent a tool.`;
  }
  return [
    `Task: ${task}`,
    '',
    'Do this with the tools of the MCC catalog:',
    ...findLines(s),
    '3. Read the answer. A failure carries the return code, stdout and stderr: fix the parameters and try again, or pick another tool. ' +
      'Do not pass parameters a signature does not list.',
    '',
    ...sessionLines(s),
  ].join('\n');
}

function kindOf(tool: ToolDef): string {
  if (tool.kind === 'exec') return 'a shell command (run as /bin/sh -c)';
  return tool.language === 'js' ? `a JavaScript function (${tool.target})` : `a Python function (${tool.target})`;
}

function entry(tool: ToolDef, show: Exposure): string[] {
  return [
    'Its catalog entry:',
    '```',
    formatSignature(tool),
    '```',
    `It is ${kindOf(tool)}, defined in ${tool.source.file}:${tool.source.line}. Call it with ${callOf(tool, show)}.`,
  ];
}

export function explainToolText(tool: ToolDef, s: PromptSetting): string {
  return [
    `Explain the MCC catalog tool '${tool.key}' to the user:`,
    '1. what it does and what it returns;',
    '2. each parameter: its type, whether it is required, its default;',
    '3. when to use it, and when another tool of the catalog fits better.',
    '',
    ...entry(tool, s.show),
    '',
    ...(s.show.catalogTools ? ['`search(query="...")` finds related tools.'] : []),
    ...sessionLines(s),
  ].join('\n');
}

export function debugErrorText(key: string, error: string, tool: ToolDef | undefined, s: PromptSetting): string {
  const head = [`The MCC catalog tool '${key}' answered with this error:`, '', '```', error.trim(), '```', ''];
  if (!tool) {
    const find = s.show.catalogTools ? 'Call `search(query="...")` or `describe_tools()` to find' : 'Look in your tool list for';
    return [...head, `There is no tool '${key}' you can run in this catalog: the key is wrong, or you may not run it. ${find} the right tool, then try again.`].join('\n');
  }
  return [
    ...head,
    ...entry(tool, s.show),
    '',
    'Diagnose it and fix it:',
    '1. "Invalid parameters", "missing required parameter", "unknown parameter": nothing ran. Compare the call with the signature (names, types, required ones) and call again.',
    '2. "return code N" with stdout and stderr: the tool ran and failed. Read stderr. "timeout after Ns" means it ran out of time; ' +
      '"resource limit hit" names the limit; code 127 or "not found" often means a program is missing from its PATH.',
    '3. "did not run" with a reason: the setup stopped it (a template variable without a value, a missing folder, a declined form).',
    '4. A value the tool reads from the session (`$MCC_CTX_<NAME>` or its context) may be missing or stale: check it with `get_session(name)` and fix it with `set_session(name, value)`.',
    `Then retry with ${callOf(tool, s.show)}, or${s.show.catalogTools ? ' `search` for' : ' pick'} a tool that fits better.`,
    '',
    ...sessionLines(s),
  ].join('\n');
}
