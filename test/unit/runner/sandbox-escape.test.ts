// Tools in a sandbox try to get out, and each attempt is refused: the
// server's environment and token, the users file, files outside the read
// list, writes outside the write list, the server's port, other tools'
// processes, and outliving the call. The suite runs as a program of its own
// (test/support/sandbox-escapes.ts, a real server process with MCC_TOKEN in
// its environment), once as this user and once as nobody, as users run it.
// Each attempt has its control: the same thing done where it is allowed works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EscapeReport } from '../../support/sandbox-escapes';

const OUT = join(__dirname, '..', '..', '..');
const REPO = join(OUT, '..');
const TOKEN = `escape-test-token-${process.pid}-0123456789abcdef`;
const isRoot = process.getuid?.() === 0;

function runSuite(script: string, prefix: string[] = []): EscapeReport {
  const argv = [...prefix, process.execPath, script];
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 120_000, env: { ...process.env, MCC_TOKEN: TOKEN } });
  assert.equal(r.status, 0, `the escape suite ran to its end: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as EscapeReport;
}

const AS_NOBODY = ['setpriv', '--reuid', 'nobody', '--regid', 'nogroup', '--clear-groups'];
const SCRIPT = join(OUT, 'test', 'support', 'sandbox-escapes.js');

/**
 * The suite as nobody can run it: in place when nobody can read the
 * checkout, else copied to a fresh temp dir opened up (755) all the way.
 */
function copyForNobody(): { script: string; cleanup: () => void } {
  const readable = spawnSync(AS_NOBODY[0], [...AS_NOBODY.slice(1), 'test', '-r', SCRIPT]).status === 0;
  if (readable) return { script: SCRIPT, cleanup: () => undefined };
  const dir = mkdtempSync(join(tmpdir(), 'mcc-escape-nobody-'));
  cpSync(join(OUT, 'src'), join(dir, 'out', 'src'), { recursive: true });
  cpSync(join(OUT, 'test', 'support'), join(dir, 'out', 'test', 'support'), { recursive: true });
  mkdirSync(join(dir, 'src', 'core', 'fn'), { recursive: true });
  cpSync(join(REPO, 'src', 'core', 'fn', 'python'), join(dir, 'src', 'core', 'fn', 'python'), { recursive: true });
  cpSync(join(REPO, 'node_modules'), join(dir, 'node_modules'), { recursive: true });
  openUp(dir);
  return { script: join(dir, 'out', 'test', 'support', 'sandbox-escapes.js'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

function openUp(path: string): void {
  const s = statSync(path);
  chmodSync(path, s.isDirectory() ? 0o755 : s.mode & 0o111 ? 0o755 : 0o644);
  if (s.isDirectory()) for (const n of readdirSync(path)) openUp(join(path, n));
}

/** The attempts' tests; the report is read when they run (it may come from a before hook). */
function judge(report: () => EscapeReport): void {
  const all = (name: string): string => `${report().outcomes[name].stdout}\n${report().outcomes[name].stderr}`;

  test("the server's environment and MCC_TOKEN: not in /proc, not in the tool's environment (pipe, pty, transform, Python)", () => {
    const r = report();
    const o = r.outcomes;
    assert.ok(r.environHoldsToken, "control: the server's own /proc/<pid>/environ holds the token");
    for (const name of ['environ', 'environ-pty', 'environ-transform', 'python-environ']) {
      assert.ok(!all(name).includes(r.token), `${name}: the token leaked`);
    }
    assert.match(o.environ.stdout, /token=\[\]/, 'MCC_TOKEN is not in the environment');
    assert.match(all('environ'), new RegExp(`/proc/${r.serverPid}/environ: No such file`), "the server's /proc entry does not exist in the sandbox");
    assert.match(o['python-environ'].stdout, /ERR FileNotFoundError/);
  });

  test('the users file is covered even inside a read path or a write path; the rest of the folder reads', () => {
    const r = report();
    const o = r.outcomes;
    assert.equal(o.users.stdout, 'visible-ok', 'control: the catalog folder is readable; the users file shows nothing');
    for (const name of ['users', 'users-under-write', 'python-users']) assert.ok(!all(name).includes(r.usersSecret), `${name}: the users file leaked`);
    assert.match(o['python-users'].stdout, /ERR/);
    assert.equal(o['python-visible'].stdout, '"visible-ok"', 'control: Python reads the catalog folder');
  });

  test('a file outside the read list does not exist in the sandbox', () => {
    const r = report();
    const o = r.outcomes;
    assert.ok(!all('outside').includes(r.outsideSecret));
    assert.notEqual(o.outside.code, 0);
    assert.match(o['python-outside'].stdout, /ERR FileNotFoundError/);
  });

  test('writes outside the write list fail; the write list is writable', () => {
    const r = report();
    const o = r.outcomes;
    assert.equal(r.written.outside, false, 'a folder outside every list cannot be written');
    assert.equal(r.written.catalog, false, 'the read-only catalog folder cannot be written');
    assert.match(o.write.stderr, /Read-only file system/);
    assert.equal(r.written.allowed, 'allowed\n', 'control: the write path is written on the host');
  });

  test("with network off, the server's own port on 127.0.0.1 cannot be reached; with it on, it can", () => {
    const r = report();
    const o = r.outcomes;
    assert.match(o['net-off'].stdout, /ERR E/);
    assert.equal(r.connections.off, 0, 'the listener saw no connection');
    assert.match(o['net-on'].stdout, /CONNECTED/, 'control: network: true reaches it');
    assert.equal(r.connections.on, 1);
  });

  test("another tool's process is invisible (shell in pipes and in a pty, Python)", () => {
    const r = report();
    const o = r.outcomes;
    assert.ok(r.hostSaw.otherTool, "control: the other tool's process was running, seen from the host");
    const marker = o.marker.stdout;
    for (const name of ['processes', 'processes-pty']) {
      assert.equal(o[name].code, 0, `${name}: ${o[name].stderr}`);
      assert.ok(!o[name].stdout.includes(marker), `${name} saw the other tool`);
      assert.ok(!o[name].stdout.includes('node'), `${name} saw the server`);
    }
    assert.ok(Number(o.processes.stdout.trim().split('\n').pop()) <= 5, `only the run's own processes: ${o.processes.stdout}`);
    assert.match(o['processes-python'].stdout, /ERR FileNotFoundError/, "the server's pid does not exist for Python");
  });

  test('background processes, one in a session of its own, end with the call', () => {
    const r = report();
    const o = r.outcomes;
    assert.match(o.background.stdout, /bg-[0-9a-f-]+-a/, 'control: they were running inside the call');
    assert.match(o.background.stdout, /bg-[0-9a-f-]+-b/);
    assert.deepEqual(r.hostSaw.backgroundAfter, [], 'none is left on the host once the call has answered');
  });
}

void describe('sandbox escapes, the server as this user', () => {
  let r: EscapeReport | undefined;
  before(() => {
    r = runSuite(SCRIPT);
  });
  judge(() => r as EscapeReport);
});

void describe('sandbox escapes, the server as nobody (unprivileged user namespaces)', { skip: isRoot ? false : 'runs as root only (setpriv to nobody); as a user, the suite above is the unprivileged run' }, () => {
  let copy: ReturnType<typeof copyForNobody> | undefined;
  let r: EscapeReport | undefined;
  before(() => {
    copy = copyForNobody();
    r = runSuite(copy.script, AS_NOBODY);
  });
  after(() => copy?.cleanup());
  test('the server really ran as nobody', () => {
    assert.ok(r && r.uid !== 0 && r.uid !== -1, `uid ${r?.uid}`);
  });
  judge(() => r as EscapeReport);
});
