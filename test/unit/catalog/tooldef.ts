// Hand-built ToolDefs for tests of pure functions (no loader involved).
import type { ExecTool, ParamSpec } from '../../../src/core/catalog/types';

export function param(name: string, extra: Partial<ParamSpec> = {}): ParamSpec {
  const hasDefault = 'default' in extra;
  const hasOverride = 'override' in extra;
  return { name, type: 'str', required: !hasDefault && !hasOverride, hasDefault, hasOverride, ...extra };
}

export function execTool(name: string, params: ParamSpec[] = [], extra: Partial<ExecTool> = {}): ExecTool {
  const groups = extra.groups ?? ['public'];
  return {
    kind: 'exec',
    key: [...groups, name].join('.'),
    name,
    description: '',
    groups,
    params,
    env: {},
    envPassthrough: false,
    limits: {},
    stdin: false,
    source: { file: '/x/tools.yaml', line: 1 },
    catalogDir: '/x',
    command: 'true',
    ...extra,
  };
}
