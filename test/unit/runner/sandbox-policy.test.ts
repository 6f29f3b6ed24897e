// Who runs in a sandbox, and what happens where none can be made: a tool
// that asks for one is refused with the cause and the fix, before anything
// starts; it never runs unsandboxed. JavaScript tools cannot be sandboxed;
// Python's warm processes never mix sandboxed and unsandboxed calls.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { ExecExecutor } from '../../../src/core/runner/exec-executor';
import { FnExecutor } from '../../../src/core/fn/fn-executor';
import { ToolRunner } from '../../../src/core/runner/tool-runner';
import { Sandbox } from '../../../src/core/sandbox/sandbox';
import { probeSandbox } from '../../../src/core/sandbox/probe';
import { bwrapArgs } from '../../../src/core/sandbox/bwrap-args';
import { profileOf } from '../../../src/core/sandbox/profile';
import { ToolInputError } from '../../../src/core/tool-run/errors';
import type { FnTool } from '../../../src/core/catalog/types';
import { call, execTool, tempFolders } from './helpers';
import { loadCatalog } from '../../../src/core/catalog/load';
import { FnToolResolver } from '../../../src/core/fn/fn-tool-resolver';
import { jsTool } from '../fn/helpers';

const folder = tempFolders();

function runners(sandbox: Sandbox): { exec: ReturnType<ToolRunner['wrap']>; fn: ReturnType<ToolRunner['wrap']> } {
  const runner = new ToolRunner({ sandbox });
  return { exec: runner.wrap(new ExecExecutor({ defaultMode: 'pipe', sandbox })), fn: runner.wrap(new FnExecutor({ sandbox })) };
}

function pyTool(dir: string, over: Partial<FnTool> = {}): FnTool {
  writeFileSync(join(dir, 'who.py'), 'import os\ndef pid() -> int:\n    return os.getpid()\n');
  return {
    kind: 'fn', language: 'python', target: 'who:pid', python: '/usr/bin/python3', takesContext: false, paramsDeclared: true,
    key: 'py.pid', name: 'pid', description: '', groups: ['py'], params: [], env: {}, envPassthrough: false, limits: {}, stdin: false,
    source: { file: join(dir, 'tools.yaml'), line: 1 }, catalogDir: dir, ...over,
  };
}

void describe('where no sandbox can be made', () => {
  void test('no bwrap on the PATH: the tool is refused, naming the fix, and nothing runs', async () => {
    const dir = folder();
    const marker = join(dir, 'ran');
    const { exec, fn } = runners(new Sandbox({ probe: { path: join(dir, 'no-bin') } }));
    for (const pty of [false, true]) {
      const tool = execTool({ command: `touch ${marker}`, sandbox: 'default', catalogDir: dir, pty });
      await assert.rejects(exec.run(tool, {}, call().ctx), (e: Error) => {
        assert.ok(e instanceof ToolInputError);
        assert.match(e.message, /runs only in a sandbox \(sandbox=default\), and none can be made: bubblewrap \(bwrap\) is not on the PATH; install it: apt install bubblewrap/);
        return true;
      });
    }
    await assert.rejects(fn.run(pyTool(dir, { sandbox: { network: false } }), {}, call().ctx), /sandbox=tool\), and none can be made: .*apt install bubblewrap/);
    assert.equal(existsSync(marker), false, 'nothing ran');
    // A tool that opts out, and one that says nothing, still run.
    const free = await exec.run(execTool({ command: `touch ${marker}`, sandbox: false, catalogDir: dir }), {}, call().ctx);
    assert.equal(free.code, 0);
    assert.equal(existsSync(marker), true);
    await exec.dispose();
    await fn.dispose();
  });

  void test('bwrap that cannot make namespaces: the error names user namespaces and the sysctl', () => {
    const dir = folder();
    const fake = join(dir, 'bwrap');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n');
    chmodSync(fake, 0o755);
    const s = probeSandbox({ bwrap: fake });
    assert.equal(s.ok, false);
    assert.match(s.ok ? '' : s.reason, /setting up uid map: Permission denied.*unprivileged user namespaces.*sysctl kernel\.unprivileged_userns_clone=1/);
    const sandbox = new Sandbox({ probe: { bwrap: fake } });
    assert.throws(() => sandbox.prepare(execTool({ command: 'true', sandbox: 'default' }), { env: {} }), /none can be made: bubblewrap cannot make a sandbox here/);
  });

  void test('macOS and Windows: refused, saying sandboxes need Linux', () => {
    const mac = probeSandbox({ platform: 'darwin' });
    assert.match(mac.ok ? '' : mac.reason, /need Linux \(bubblewrap\).*macOS/);
    const win = probeSandbox({ platform: 'win32' });
    assert.match(win.ok ? '' : win.reason, /need Linux.*win32/);
  });
});

void describe('who runs sandboxed', () => {
  void test("the server's default sandboxes every tool that does not opt out; a tool's own profile wins", () => {
    const t = execTool({ command: 'true' });
    assert.equal(profileOf(t, 'off'), undefined);
    assert.deepEqual(profileOf(t, 'default'), { kind: 'default', read: [t.catalogDir], write: [], network: false });
    assert.equal(profileOf({ ...t, sandbox: false }, 'default'), undefined);
    assert.deepEqual(profileOf({ ...t, sandbox: { network: true } }, 'off'), { kind: 'tool', read: [t.catalogDir], write: [], network: true });
  });

  void test('bwrap argv: no network unless asked, own PID namespace, dies with its parent, no new session, secrets covered', () => {
    const dir = folder();
    writeFileSync(join(dir, 'users.yaml'), 'users: []\n');
    const args = bwrapArgs({ profile: { kind: 'default', read: [dir], write: [], network: false }, hidden: [join(dir, 'users.yaml')] });
    for (const flag of ['--unshare-pid', '--unshare-net', '--unshare-ipc', '--unshare-uts', '--die-with-parent']) assert.ok(args.includes(flag), flag);
    assert.ok(!args.includes('--new-session'), 'a pty run keeps its own terminal');
    assert.ok(!args.includes('--clearenv'), 'the environment is the one MCC built');
    const at = args.indexOf(join(dir, 'users.yaml'));
    assert.deepEqual(args.slice(at - 2, at + 1), ['--ro-bind', '/dev/null', join(dir, 'users.yaml')]);
    assert.ok(at > args.lastIndexOf(dir), 'covered after the folder that holds it is mounted');
    const online = bwrapArgs({ profile: { kind: 'tool', read: [dir], write: [], network: true }, hidden: [] });
    assert.ok(!online.includes('--unshare-net'));
  });

  void test('a JavaScript fn tool under the server-wide sandbox is refused, saying why; sandbox: false runs it', async () => {
    const { fn } = runners(new Sandbox({ server: 'default' }));
    await assert.rejects(fn.run(jsTool('echo', { params: [] }), {}, call().ctx), /JavaScript fn tools run as worker threads inside the server and cannot be sandboxed; set 'sandbox: false'/);
    const free = await fn.run(jsTool('echo', { params: [], sandbox: false }), {}, call().ctx);
    assert.equal(free.code, 0);
    await fn.dispose();
  });

  void test('a cwd outside the sandbox is refused before anything starts', () => {
    const sandbox = new Sandbox();
    const outside = folder();
    assert.throws(() => sandbox.prepare(execTool({ command: 'true', sandbox: 'default', cwd: outside }), { env: {}, cwd: outside }), /cwd .* is outside the sandbox \(sandbox=default\)/);
  });

  void test('Python: a sandboxed call never runs in an unsandboxed warm process, nor the other way round', async () => {
    const dir = folder();
    const { fn } = runners(new Sandbox());
    const free = await fn.run(pyTool(dir), {}, call().ctx);
    const boxed = await fn.run(pyTool(dir, { sandbox: 'default' }), {}, call().ctx);
    const boxedAgain = await fn.run(pyTool(dir, { sandbox: 'default' }), {}, call().ctx);
    const freeAgain = await fn.run(pyTool(dir), {}, call().ctx);
    assert.equal(free.code, 0, free.stderr);
    assert.equal(boxed.code, 0, boxed.stderr);
    assert.equal(boxed.value, 2, 'the sandboxed runner is alone in its PID namespace (bwrap is 1)');
    assert.equal(boxedAgain.value, 2);
    assert.ok(typeof free.value === 'number' && free.value > 2, 'the unsandboxed runner sees the host PIDs');
    assert.equal(freeAgain.value, free.value, 'the unsandboxed warm process is reused by unsandboxed calls');
    await fn.dispose();
  });

  void test("a sandboxed Python tool's module is imported for introspection inside its sandbox too", async () => {
    const outside = folder();
    const module = `try:\n    open(${JSON.stringify(join(outside, 'imported'))}, "w").write("x")\nexcept Exception:\n    pass\ndef twice(x: int) -> int:\n    return 2 * x\n`;
    const load = async (sandbox: string): Promise<string[]> => {
      const dir = folder();
      writeFileSync(join(dir, 'mod.py'), module);
      writeFileSync(join(dir, 'tools.yaml'), `sandbox: ${sandbox}\ntools:\n  - fn: mod:twice\n    python: /usr/bin/python3\n`);
      const c = await loadCatalog([join(dir, 'tools.yaml')], { env: {}, fnResolver: new FnToolResolver({ sandbox: new Sandbox() }) });
      assert.deepEqual(c.diagnostics.filter((d) => d.severity === 'error'), []);
      return c.tools.get('public.twice')?.params.map((p) => p.name) ?? [];
    };
    assert.deepEqual(await load('default'), ['x'], 'introspected inside the sandbox');
    assert.equal(existsSync(join(outside, 'imported')), false, 'the import could not write outside');
    assert.deepEqual(await load('false'), ['x']);
    assert.equal(existsSync(join(outside, 'imported')), true, 'control: unsandboxed, the same import writes there');
  });

  void test('a death by signal reads the same with and without a sandbox (bwrap reports it as 128+N); an exit code stays one', async () => {
    const dir = folder();
    const { exec, fn } = runners(new Sandbox());
    for (const sandbox of [false, 'default'] as const) {
      const killed = await exec.run(execTool({ command: 'kill -9 $$', sandbox, pty: false }), {}, call().ctx);
      assert.equal(killed.code, -9, `sandbox=${String(sandbox)}`);
      assert.match(killed.stderr, /killed by signal SIGKILL/);
      const exited = await exec.run(execTool({ command: 'exit 7', sandbox, pty: false }), {}, call().ctx);
      assert.equal(exited.code, 7);
    }
    writeFileSync(join(dir, 'die.py'), 'import os, signal\ndef die() -> int:\n    os.kill(os.getpid(), signal.SIGKILL)\n    return 0\n');
    const py = await fn.run(pyTool(dir, { target: 'die:die', sandbox: 'default' }), {}, call().ctx);
    assert.equal(py.code, -9);
    assert.match(py.stderr, /killed by signal SIGKILL/);
    await exec.dispose();
    await fn.dispose();
  });

  void test('a sandboxed run that times out is stopped, in pipes and in a pty, and nothing of it is left', async () => {
    const { exec } = runners(new Sandbox());
    for (const pty of [false, true]) {
      const marker = `timeout-${randomUUID()}`;
      const command = `trap '' TERM; sh -c 'sleep 30' ${marker} & sleep 0.2; grep -q ${marker} /proc/[0-9]*/cmdline && echo running; sleep 31`;
      const r = await exec.run(execTool({ command, sandbox: 'default', limits: { timeout: 1 }, pty }), {}, call().ctx);
      assert.match(r.stdout, /running/, 'control: the background process was running');
      assert.equal(r.code, -1);
      assert.match(r.stderr, /timeout after 1s/);
      const left = readdirSync('/proc').filter((n) => /^\d+$/.test(n) && cmdline(n).includes(marker));
      assert.deepEqual(left, [], `pty=${pty}: nothing left`);
    }
    await exec.dispose();
  });
});

function cmdline(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
