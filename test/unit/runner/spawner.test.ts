// The spawner: the small helper process that starts every run's process.
// Real processes throughout: the helper, /bin/sh, node-pty.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readlinkSync } from 'node:fs';
import { runChild, type ChildSpec } from '../../../src/core/runner/run-child';
import { isAlive } from '../../../src/core/runner/process-tree';
import { spawnerPid } from '../../../src/core/runner/spawner-client';
import { HOST_PATH } from './helpers';

function spec(over: Partial<ChildSpec> & { args: string[] }): ChildSpec {
  return { mode: 'pipe', env: { PATH: HOST_PATH }, maxOutputBytes: 1 << 20, killGraceMs: 200, signal: new AbortController().signal, ...over };
}

async function until(what: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!what()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

const linux = process.platform === 'linux' && process.env.MCC_SPAWNER !== 'off';

describe('spawner', { skip: !linux && 'the spawner runs on Linux here' }, () => {
  test('the run is a child of the spawner, with only the environment it was given and only its own stdio', async () => {
    const r = await runChild(spec({ args: ['-c', 'echo "parent=$PPID"; env; for f in /proc/$$/fd/*; do echo "fd=$(readlink "$f")"; done'], env: { PATH: HOST_PATH, ONLY: 'this' } }));
    assert.equal(r.code, 0, r.stderr.text());
    const helper = spawnerPid();
    assert.ok(helper !== undefined && helper !== process.pid);
    const out = r.stdout.text();
    assert.match(out, new RegExp(`^parent=${helper}$`, 'm'));
    const env = out.split('\n').filter((l) => /^[A-Z_]+=/.test(l)).map((l) => l.split('=')[0]);
    // PWD and SHLVL are the shell's own.
    assert.deepEqual(env.filter((n) => !['PWD', 'SHLVL', 'OLDPWD'].includes(n)).sort(), ['ONLY', 'PATH']);
    // Neither end of the helper's pipes to the server reaches the tool.
    const fds = out.split('\n').filter((l) => l.startsWith('fd=')).map((l) => l.slice(3));
    const channel = [0, 1].map((fd) => readlinkSync(`/proc/${helper}/fd/${fd}`));
    assert.ok(fds.length >= 3, out);
    for (const c of channel) assert.ok(!fds.includes(c), `the tool holds the spawner's ${c}: ${fds.join(' ')}`);
  });

  test('a spawner that ends stops the run in flight, which fails, and the next run starts a new one', async () => {
    await runChild(spec({ args: ['-c', 'true'] }));
    const first = spawnerPid() as number;
    let sleeper = 0;
    const running = runChild(
      spec({
        args: ['-c', 'sleep 30 & echo $!; wait'],
        onOutput: (_s, d) => (sleeper ||= Number.parseInt(d, 10)),
      }),
    );
    await until(() => sleeper > 0);
    assert.ok(isAlive(sleeper));
    process.kill(first, 'SIGKILL');
    await assert.rejects(running, /spawner .* ended during the run/);
    // Everything the run started is gone, the background sleep too.
    await until(() => !isAlive(sleeper));
    const next = await runChild(spec({ args: ['-c', 'echo again'] }));
    assert.equal(next.stdout.text(), 'again\n');
    const second = spawnerPid();
    assert.ok(second !== undefined && second !== first, 'a new spawner');
  });

  test('in a terminal: output, exit code and a signal death come back through the spawner', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pty = require('node-pty') as typeof import('node-pty');
    const ok = await runChild(spec({ mode: 'pty', pty, args: ['-c', 'printf "%s\\n" "$(tty)"; exit 3'] }));
    assert.equal(ok.code, 3);
    assert.match(ok.stdout.text(), /^\/dev\/pts\/\d+/);
    const killed = await runChild(spec({ mode: 'pty', pty, args: ['-c', 'kill -TERM $$'] }));
    assert.equal(killed.signal, 15);
    assert.equal(killed.code, null);
  });

  test('an abort before the spawner has said the pid still ends the run', async () => {
    const ac = new AbortController();
    ac.abort();
    const r = await runChild(spec({ args: ['-c', 'sleep 30'], signal: ac.signal }));
    assert.equal(r.aborted, true);
  });
});
