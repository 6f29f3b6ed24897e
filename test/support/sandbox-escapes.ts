// The sandbox escape suite as a program of its own: it plays the server (a
// real process whose environment holds MCC_TOKEN, with a users file and a
// TCP listener), runs tools that try to get out, and prints what each saw
// as one JSON line. test/unit/runner/sandbox-escape.test.ts runs it as the
// current user and, through setpriv, as nobody, and judges the answers.
// Every attempt has a control that shows the attempt could have worked.
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { ExecTool, FnTool, SandboxSetting } from '../../src/core/catalog/types';
import type { RunContext, RunOutcome } from '../../src/core/tool-run/contract';
import { ExecExecutor } from '../../src/core/runner/exec-executor';
import { FnExecutor } from '../../src/core/fn/fn-executor';
import { ToolRunner } from '../../src/core/runner/tool-runner';
import { Sandbox } from '../../src/core/sandbox/sandbox';
import { serverSecrets } from '../../src/core/secrets';

export interface EscapeReport {
  serverPid: number;
  uid: number;
  token: string;
  /** Whether the server's own /proc/<pid>/environ holds the token (the control of the environ attempts). */
  environHoldsToken: boolean;
  usersSecret: string;
  outsideSecret: string;
  outcomes: Record<string, Pick<RunOutcome, 'code' | 'stdout' | 'stderr'>>;
  /** Files on the host after the write attempts. */
  written: { catalog: boolean; outside: boolean; allowed: string | undefined };
  connections: { off: number; on: number };
  /** Markers seen in the host's /proc: while the other tool ran, and after the background sleeps' call. */
  hostSaw: { otherTool: boolean; backgroundAfter: string[] };
}

const PY = '/usr/bin/python3';

function ctx(signal?: AbortSignal): RunContext {
  return { runId: randomUUID(), caller: { user: 'eve', bucketKey: 'b' }, store: { user: 'eve' }, events: { emit: () => undefined }, ...(signal ? { signal } : {}) };
}

function hostCmdlines(): string {
  const out: string[] = [];
  for (const n of readdirSync('/proc')) {
    if (!/^\d+$/.test(n)) continue;
    try {
      out.push(readFileSync(`/proc/${n}/cmdline`, 'utf8').replace(/\0/g, ' '));
    } catch {
      // gone
    }
  }
  return out.join('\n');
}

async function main(): Promise<void> {
  const token = process.env.MCC_TOKEN ?? '';
  const base = mkdtempSync(join(tmpdir(), 'mcc-escape-'));
  const catalog = join(base, 'catalog');
  const outside = join(base, 'outside');
  mkdirSync(join(catalog, 'out'), { recursive: true });
  mkdirSync(outside);
  const users = join(catalog, 'users.yaml');
  const usersSecret = `users-file-secret-${randomUUID()}`;
  const outsideSecret = `outside-secret-${randomUUID()}`;
  writeFileSync(users, `users:\n  - user: bob\n    token: ${usersSecret}\n`);
  writeFileSync(join(outside, 'secret.txt'), outsideSecret);
  writeFileSync(join(catalog, 'visible.txt'), 'visible-ok');
  writeFileSync(join(catalog, 'peek.py'), 'def peek(path: str) -> str:\n    try:\n        return open(path).read()\n    except Exception as e:\n        return "ERR " + type(e).__name__\n');

  const secrets = serverSecrets({ ownerToken: token, env: process.env, files: [users] });
  const sandbox = new Sandbox({ hidden: secrets.files ?? [] });
  const runner = new ToolRunner({ secrets, sandbox });
  const exec = runner.wrap(new ExecExecutor({ defaultMode: 'pipe', secrets, sandbox }));
  const fn = runner.wrap(new FnExecutor({ secrets, sandbox }));
  let connections = 0;
  const listener = createServer((c) => {
    connections++;
    c.end();
  });
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r));
  const port = (listener.address() as { port: number }).port;

  const tool = (command: string, over: Partial<ExecTool> = {}): ExecTool => ({
    kind: 'exec', key: 'esc.tool', name: 'tool', description: '', groups: ['esc'], params: [], env: {}, envPassthrough: true,
    limits: {}, stdin: false, source: { file: join(catalog, 'tools.yaml'), line: 1 }, catalogDir: catalog, cwd: catalog, sandbox: 'default', command, ...over,
  });
  const outcomes: EscapeReport['outcomes'] = {};
  const run = async (name: string, t: ExecTool | FnTool, params: Record<string, unknown> = {}, signal?: AbortSignal): Promise<void> => {
    const o = await (t.kind === 'exec' ? exec : fn).run(t, params, ctx(signal));
    outcomes[name] = { code: o.code, stdout: o.stdout, stderr: o.stderr };
  };

  const pid = process.pid;
  const environ = `cat /proc/${pid}/environ; for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < "$f"; done; echo "token=[$MCC_TOKEN]"`;
  await run('environ', tool(environ));
  await run('environ-pty', tool(environ, { pty: true }));
  await run('environ-transform', tool('echo hi', { transform: `cat /proc/${pid}/environ; cat /proc/1/environ` }));
  await run('users', tool(`cat ${users}; cat ./users.yaml; cat visible.txt`));
  await run('users-under-write', tool(`cat ${users}`, { sandbox: { read: [], write: [catalog] } }));
  await run('outside', tool(`cat ${join(outside, 'secret.txt')}`));
  await run('write', tool(`echo x > ${join(outside, 'new.txt')}; echo x > ${join(catalog, 'new.txt')}; echo allowed > ${join(catalog, 'out', 'w.txt')}`, { sandbox: { write: [join(catalog, 'out')] } }));
  const node = process.execPath;
  const connect = `${node} -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => { console.log('ERR', e.code); process.exit(3); })"`;
  const nodeRead = [catalog, dirname(dirname(node))];
  await run('net-off', tool(connect, { sandbox: { read: nodeRead, network: false } }));
  const off = connections;
  await run('net-on', tool(connect, { sandbox: { read: nodeRead, network: true } }));
  const on = connections - off;

  // Another tool's process, running meanwhile.
  const marker = `other-tool-${randomUUID()}`;
  const stopOther = new AbortController();
  const other = run('other-tool', tool(`sh -c 'sleep 20' ${marker}`), {}, stopOther.signal);
  let otherTool = false;
  for (let i = 0; i < 100 && !otherTool; i++) {
    await new Promise((r) => setTimeout(r, 50));
    otherTool = hostCmdlines().includes(marker);
  }
  await run('processes', tool(`cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo; ls /proc | grep -c '^[0-9]'`));
  await run('processes-pty', tool(`cat /proc/[0-9]*/cmdline | tr '\\0' ' '`, { pty: true }));
  await run('processes-python', pyTool(catalog), { path: `/proc/${pid}/cmdline` });
  stopOther.abort();
  await other;
  outcomes.marker = { code: 0, stdout: marker, stderr: '' };

  // Background processes, one of them in a session of its own, must end with the call.
  const bg = `bg-${randomUUID()}`;
  await run('background', tool(`setsid sh -c 'sleep 30' ${bg}-a & sh -c 'sleep 30' ${bg}-b & sleep 0.3; cat /proc/[0-9]*/cmdline | tr '\\0' ' '`));
  const backgroundAfter = hostCmdlines().split('\n').filter((l) => l.includes(bg));

  await run('python-environ', pyTool(catalog), { path: `/proc/${pid}/environ` });
  await run('python-users', pyTool(catalog), { path: users });
  await run('python-outside', pyTool(catalog), { path: join(outside, 'secret.txt') });
  await run('python-visible', pyTool(catalog), { path: join(catalog, 'visible.txt') });

  const report: EscapeReport = {
    serverPid: pid,
    uid: process.getuid?.() ?? -1,
    token,
    environHoldsToken: readFileSync(`/proc/${pid}/environ`, 'utf8').includes(token),
    usersSecret,
    outsideSecret,
    outcomes,
    written: {
      catalog: existsSync(join(catalog, 'new.txt')),
      outside: existsSync(join(outside, 'new.txt')),
      allowed: existsSync(join(catalog, 'out', 'w.txt')) ? readFileSync(join(catalog, 'out', 'w.txt'), 'utf8') : undefined,
    },
    connections: { off, on },
    hostSaw: { otherTool, backgroundAfter },
  };
  listener.close();
  await exec.dispose();
  await fn.dispose();
  rmSync(base, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

function pyTool(catalog: string, sandbox: SandboxSetting = 'default'): FnTool {
  return {
    kind: 'fn', language: 'python', target: 'peek:peek', python: PY, takesContext: false, paramsDeclared: true,
    key: 'esc.peek', name: 'peek', description: '', groups: ['esc'], params: [{ name: 'path', type: 'str', required: true, hasDefault: false, hasOverride: false }],
    env: {}, envPassthrough: true, limits: {}, stdin: false, source: { file: join(catalog, 'tools.yaml'), line: 1 }, catalogDir: catalog, sandbox,
  };
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
