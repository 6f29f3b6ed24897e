// Run modes, stdin, cwd, input errors and events, with real /bin/sh processes.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../../src/core/host';
import { ToolInputError } from '../../../src/core/tool-run/errors';
import type { RunEvent } from '../../../src/core/tool-run/contract';
import { FIXTURES, HOST_PATH, call, execTool, param, tempDir, keptExec } from './helpers';

const PATH_ENV = { PATH: HOST_PATH };

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, debug: () => undefined, error: () => undefined, warn: (m) => warnings.push(m) };
}

function outputOf(events: RunEvent[], stream: 'stdout' | 'stderr' = 'stdout'): string {
  return events.map((e) => (e.type === 'output' && e.stream === stream ? e.data : '')).join('');
}

describe('pty mode (the default)', () => {
  const ex = keptExec({ defaultMode: 'pty' });

  test('the program sees a terminal; colours reach events but not the result', async () => {
    const tool = execTool({ command: `[ -t 1 ] && echo tty || echo notty; printf '\\033[31mred\\033[0m\\r\\n'; echo err >&2` });
    const { ctx, events } = call();
    const out = await ex.run(tool, {}, ctx);
    assert.equal(out.code, 0, out.stdout);
    assert.equal(out.stdout, 'tty\nred\nerr\n');
    assert.equal(out.stderr, '');
    assert.ok(outputOf(events).includes('\u001b[31mred\u001b[0m'), 'raw colours in events');
    const started = events.find((e) => e.type === 'started');
    assert.equal(started?.type === 'started' && started.mode, 'pty');
  });

  test('a program that reads the terminal gets EOF instead of hanging', async () => {
    const out = await keptExec({ defaultMode: 'pty' }).run(execTool({ command: '/bin/cat; echo after', limits: { timeout: 10 } }), {}, call().ctx);
    assert.equal(out.code, 0);
    assert.equal(out.stdout, 'after\n');
    assert.ok(out.durationMs < 5000);
  });

  test('a NUL byte in a param is refused before anything runs, naming the param', async () => {
    const tool = execTool({ command: 'echo {{ s | quote }} {{ l | quote }}', params: [param('s'), param('l', { type: 'list' })] });
    await assert.rejects(
      ex.run(tool, { s: 'ok', l: ['a', 'b\0c'] }, call().ctx),
      (e: unknown) => e instanceof ToolInputError && /parameter 'l' contains a NUL byte/.test(e.message) && !/Error:/.test(e.message),
    );
  });

  test('exit codes come through', async () => {
    const out = await ex.run(execTool({ command: 'echo partial; exit 3' }), {}, call().ctx);
    assert.equal(out.code, 3);
    assert.equal(out.stdout, 'partial\n');
  });
});

describe('pipe mode', () => {
  test('pty: false selects pipes: stdout and stderr are separate, no terminal', async () => {
    const ex = keptExec({ defaultMode: 'pty' });
    const tool = execTool({ command: 'echo out; echo err >&2; [ -t 1 ] || echo notty', pty: false });
    const { ctx, events } = call();
    const out = await ex.run(tool, {}, ctx);
    assert.equal(out.code, 0);
    assert.equal(out.stdout, 'out\nnotty\n');
    assert.equal(out.stderr, 'err\n');
    assert.equal(outputOf(events, 'stderr'), 'err\n');
    const started = events.find((e) => e.type === 'started');
    assert.equal(started?.type === 'started' && started.mode, 'pipe');
  });

  test('node-pty that cannot load: pipe mode with one warning, calls still work', async () => {
    const logger = recordingLogger();
    const ex = keptExec({
      defaultMode: 'pty',
      logger,
      loadPty: () => {
        throw new Error('Cannot find module node-pty');
      },
    });
    for (let i = 0; i < 2; i++) {
      const { ctx, events } = call();
      const out = await ex.run(execTool({ command: '[ -t 1 ] && echo tty || echo notty' }), {}, ctx);
      assert.equal(out.stdout, 'notty\n');
      const started = events.find((e) => e.type === 'started');
      assert.equal(started?.type === 'started' && started.mode, 'pipe');
    }
    assert.equal(logger.warnings.length, 1);
    assert.match(logger.warnings[0], /node-pty could not be loaded \(Cannot find module node-pty\).*pipe mode/);
  });
});

describe('stdin', () => {
  test('the validated params, overrides included, arrive as one JSON object and then EOF', async () => {
    const ex = keptExec({ defaultMode: 'pty' });
    const tool = execTool({
      command: '/bin/cat; echo; echo eof-seen',
      stdin: true,
      params: [param('name'), param('n', { type: 'int' }), param('token', { hasOverride: true, override: 's3cret' })],
    });
    const params = { name: "it's \"quoted\"\n$(x)", n: 3, token: 's3cret', list: ['a', { b: 1 }] };
    const { ctx, events } = call();
    const out = await ex.run(tool, params, ctx);
    assert.equal(out.code, 0, out.stderr);
    const [json, tail] = out.stdout.split('\n');
    assert.deepEqual(JSON.parse(json), params);
    assert.equal(tail, 'eof-seen');
    const started = events.find((e) => e.type === 'started');
    assert.equal(started?.type === 'started' && started.mode, 'pipe', 'stdin needs a real EOF: pipe mode');
  });
});

describe('cwd', () => {
  const ex = keptExec({ defaultMode: 'pty' });

  test('the command runs in the tool cwd', async () => {
    const t = tempDir();
    try {
      writeFileSync(join(t.dir, 'here.txt'), 'x');
      const out = await ex.run(execTool({ command: 'pwd; echo *', cwd: t.dir }), {}, call().ctx);
      assert.equal(out.stdout, `${realpathSync(t.dir)}\nhere.txt\n`);
    } finally {
      t.cleanup();
    }
  });

  test('a missing folder or a file is a ToolInputError, and nothing runs', async () => {
    const { ctx, events } = call();
    await assert.rejects(ex.run(execTool({ command: 'echo ran', cwd: '/no/such/folder' }), {}, ctx), (e: unknown) => {
      return e instanceof ToolInputError && e.message === 'cwd /no/such/folder does not exist';
    });
    assert.equal(events.some((e) => e.type === 'output'), false);
    const exited = events.find((e) => e.type === 'exited');
    assert.equal(exited?.type === 'exited' && exited.error, 'cwd /no/such/folder does not exist');
    await assert.rejects(ex.run(execTool({ command: 'true', cwd: join(FIXTURES, 'sample.env') }), {}, call().ctx), /is not a folder/);
  });
});

describe('templates and events', () => {
  const ex = keptExec({ defaultMode: 'pipe' });

  test('params are rendered and quoted; started masks override values', async () => {
    const tool = execTool({
      command: "printf '%s|' {{ name | quote }} {{ token | quote }}{% if loud %} LOUD{% endif %}",
      params: [param('name'), param('token', { hasOverride: true, override: 'hunter2' }), param('loud', { type: 'bool' })],
      env: PATH_ENV,
    });
    const { ctx, events } = call();
    const out = await ex.run(tool, { name: "o'brien $(id)", token: 'hunter2', loud: true }, ctx);
    assert.equal(out.stdout, "o'brien $(id)|hunter2|LOUD|");
    const started = events.find((e) => e.type === 'started');
    assert.ok(started?.type === 'started');
    assert.doesNotMatch(started.command, /hunter2/);
    assert.match(started.command, /\*\*\*/);
    assert.equal(started.toolKey, 'test.tool');
    assert.deepEqual(started.caller, { user: 'alice', bucketKey: 's1' });
    const types = events.map((e) => e.type);
    assert.equal(types[0], 'started');
    assert.equal(types[types.length - 1], 'exited');
    const exited = events[events.length - 1];
    assert.ok(exited.type === 'exited' && exited.code === 0 && exited.durationMs >= 0);
  });

  test('a variable the call did not provide is a ToolInputError before anything runs', async () => {
    const t = tempDir();
    try {
      const tool = execTool({ command: 'echo ran > ran.txt; echo {{ missing | quote }}', cwd: t.dir });
      await assert.rejects(ex.run(tool, {}, call().ctx), (e: unknown) => e instanceof ToolInputError && /command template/.test(e.message));
      const { readdirSync } = await import('node:fs');
      assert.deepEqual(readdirSync(t.dir), []);
    } finally {
      t.cleanup();
    }
  });

  test('a failing run still emits exited with its code', async () => {
    const { ctx, events } = call();
    const out = await ex.run(execTool({ command: 'echo oops >&2; exit 4' }), {}, ctx);
    assert.equal(out.code, 4);
    assert.equal(out.stderr, 'oops\n');
    const exited = events.find((e) => e.type === 'exited');
    assert.ok(exited?.type === 'exited' && exited.code === 4);
  });
});
