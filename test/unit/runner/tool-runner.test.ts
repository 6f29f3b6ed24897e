// The tool runner: transform and cache_ttl behave alike for exec and function
// tools (JavaScript and Python), with real processes, workers and interpreters.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ExecExecutor } from '../../../src/core/runner/exec-executor';
import { FnExecutor } from '../../../src/core/fn/fn-executor';
import { ToolRunner } from '../../../src/core/runner/tool-runner';
import { ToolInputError } from '../../../src/core/tool-run/errors';
import type { RunEvent } from '../../../src/core/tool-run/contract';
import { HOST_PATH, call, execTool, param, tempDir } from './helpers';
import { JS_DIR, jsTool, pyTool } from '../fn/helpers';

const PATH_ENV = { PATH: HOST_PATH };
const kit = new ToolRunner();
const fn = kit.wrap(new FnExecutor({ poolSize: 1 }));
const exec = kit.wrap(new ExecExecutor({ defaultMode: 'pipe' }));
const counted = (over = {}) => jsTool('counted', { params: [param('file'), param('word', { required: false })], env: PATH_ENV, ...over }, join(JS_DIR, 'counted.mjs'));
const lines = (file: string): number => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
const exits = (events: RunEvent[]) => events.filter((e): e is Extract<RunEvent, { type: 'exited' }> => e.type === 'exited');

after(async () => {
  await fn.dispose?.();
  await exec.dispose?.();
});

describe('transform on function tools', () => {
  test("a JavaScript tool's value reaches the transform as MCC's runner prints it (json.dumps), and the answer is the transform's text", async () => {
    const t = tempDir();
    try {
      const tool = counted({ transform: '/bin/cat; echo; echo "{{ word }}" | tr a-z A-Z' });
      const out = await fn.run(tool, { file: join(t.dir, 'n'), word: 'shout' }, call().ctx);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.value, '{"runs": 1, "word": "shout", "user": "alice"}\nSHOUT\n');
      assert.equal(out.stdout, out.value);
    } finally {
      t.cleanup();
    }
  });

  test('a Python tool is transformed too; non-ASCII and floats read as in Python', async () => {
    const t = tempDir();
    try {
      const tool = pyTool('fnpkg.counted:counted', { params: [param('file'), param('ratio', { type: 'float', required: false, hasDefault: true, default: 2 })], paramsDeclared: true, env: PATH_ENV, transform: '/bin/cat' });
      const out = await fn.run(tool, { file: join(t.dir, 'n'), ratio: 2.5 }, call().ctx);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.value, '{"runs": 1, "ratio": 2.5, "word": "caf\\u00e9"}');
    } finally {
      t.cleanup();
    }
  });

  test('a failing function skips the transform; a failing transform fails the call, and its exit is announced after it', async () => {
    const t = tempDir();
    try {
      const failing = jsTool('fails', { env: PATH_ENV, cwd: t.dir, transform: 'echo ran > transform-ran' }, join(JS_DIR, 'counted.mjs'));
      const a = await fn.run(failing, {}, call().ctx);
      assert.equal(a.code, 1);
      assert.match(a.stderr, /fn failed on purpose/);
      assert.throws(() => readFileSync(join(t.dir, 'transform-ran')), /ENOENT/);

      const { ctx, events } = call();
      const b = await fn.run(counted({ transform: 'echo bad >&2; exit 4' }), { file: join(t.dir, 'n') }, ctx);
      assert.equal(b.code, 4);
      assert.match(b.stderr, /^bad\nmcc: the transform failed with code 4$/m);
      const ended = exits(events);
      assert.equal(ended.length, 1, 'one exit per call');
      assert.equal(ended[0].code, 4, "the exit event carries the transform's code");
      assert.equal(events.at(-1)?.type, 'exited', 'the exit is the last event');
    } finally {
      t.cleanup();
    }
  });

  test('a transform that cannot render stops the call before the tool runs', async () => {
    const t = tempDir();
    try {
      const tool = counted({ transform: 'grep {{ missing | quote }}' });
      await assert.rejects(fn.run(tool, { file: join(t.dir, 'n') }, call().ctx), (e: unknown) => e instanceof ToolInputError && /'missing'/.test(e.message));
      assert.throws(() => readFileSync(join(t.dir, 'n')), /ENOENT/, 'the function did not run');
    } finally {
      t.cleanup();
    }
  });
});

describe('cache_ttl on function tools', () => {
  test('JavaScript: an identical call within the ttl is answered from the cache; other params or another caller run again', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'n');
      const tool = counted({ cacheTtl: 60 });
      const first = await fn.run(tool, { file, word: 'a' }, call().ctx);
      const { ctx, events } = call();
      const second = await fn.run(tool, { file, word: 'a' }, ctx);
      assert.deepEqual(second.value, first.value);
      assert.equal(lines(file), 1, 'the function ran once');
      assert.equal(exits(events)[0].cached, true);
      const started = events.find((e) => e.type === 'started');
      assert.equal(started?.type === 'started' ? `${started.mode} ${started.command}` : undefined, `worker ${tool.target}`, 'a cache hit is announced as a run of the tool');
      await fn.run(tool, { file, word: 'b' }, call().ctx);
      await fn.run(tool, { file, word: 'a' }, call({ user: 'bob', email: '', groups: [], tools: [] }).ctx);
      assert.equal(lines(file), 3);
    } finally {
      t.cleanup();
    }
  });

  test('Python: cached like JavaScript; failures are not cached', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'n');
      const tool = pyTool('fnpkg.counted:counted', { params: [param('file')], paramsDeclared: true, cacheTtl: 60 });
      await fn.run(tool, { file }, call().ctx);
      const again = await fn.run(tool, { file }, call().ctx);
      assert.deepEqual(again.value, { runs: 1, ratio: 0.5, word: 'café' });
      assert.equal(lines(file), 1);
      const failing = jsTool('fails', { cacheTtl: 60 }, join(JS_DIR, 'counted.mjs'));
      const { ctx: c1, events: e1 } = call();
      await fn.run(failing, {}, c1);
      const { ctx: c2, events: e2 } = call();
      await fn.run(failing, {}, c2);
      assert.equal(exits(e1)[0].cached, undefined);
      assert.equal(exits(e2)[0].cached, undefined, 'a failure is never served from the cache');
    } finally {
      t.cleanup();
    }
  });

  test('a cached transformed answer is the transformed text, for exec and fn tools alike', async () => {
    const t = tempDir();
    try {
      const file = join(t.dir, 'n');
      const f = counted({ cacheTtl: 60, transform: "/bin/sed 's/runs/RUNS/'" });
      const e = execTool({ command: 'echo run >> {{ file | quote }}; echo hello', params: [param('file')], cacheTtl: 60, transform: "/bin/sed 's/hello/HELLO/'" });
      for (let i = 0; i < 2; i++) {
        assert.match(String((await fn.run(f, { file }, call().ctx)).value), /"RUNS": 1/);
        assert.equal((await exec.run(e, { file: `${file}-exec` }, call().ctx)).stdout, 'HELLO\n');
      }
      assert.equal(lines(file), 1);
      assert.equal(lines(`${file}-exec`), 1);
    } finally {
      t.cleanup();
    }
  });
});
