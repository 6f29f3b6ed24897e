// The prompts' wording follows how the caller reaches the catalog.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { debugErrorText, explainToolText, findAndRunText, type PromptSetting } from '../../../src/core/server/prompts/prompt-text';
import { execTool, param } from '../runner/helpers';

const grep = execTool({ key: 'ops.grep', name: 'grep', groups: ['ops'], description: 'Searches files.', command: 'grep {{ p | quote }}', params: [param('p')] });
const setting = (catalogTools: boolean, directTools: boolean): PromptSetting => ({ tools: [grep], show: { catalogTools, directTools }, sessionVars: [] });

test('catalog tools only: search, describe_tools and execute, no direct names', () => {
  const t = findAndRunText('find TODOs', setting(true, false));
  assert.match(t, /search\(query=/);
  assert.match(t, /describe_tools\(\)` lists all 1 tools you can run \(groups: ops\)/);
  assert.doesNotMatch(t, /__/);
  assert.match(t, /Nothing is set in this session yet/);
});

test('direct tools only: the tools by name, no search or execute', () => {
  const t = findAndRunText('find TODOs', setting(false, true));
  assert.match(t, /- `ops__grep`: Searches files\./);
  assert.doesNotMatch(t, /search\(|execute\(|describe_tools/);
  assert.match(explainToolText(grep, setting(false, true)), /Call it with the tool `ops__grep`/);
  assert.doesNotMatch(debugErrorText('ops.grep', 'boom', grep, setting(false, true)), /execute\(/);
});

test('no tool at all: the prompt says so instead of inventing one', () => {
  assert.match(findAndRunText('x', { tools: [], show: { catalogTools: true, directTools: true }, sessionVars: [] }), /has no tool you can run/);
});
