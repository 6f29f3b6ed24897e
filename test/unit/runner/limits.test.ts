import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { limitedShellArgs, memoryExitNote, signalFromShellCode, signalNote } from '../../../src/core/runner/limits';
import { ToolInputError } from '../../../src/core/tool-run/errors';

describe('limits', () => {
  test('without Unix limits the command runs as sh -c', () => {
    assert.deepEqual(limitedShellArgs({ timeout: 5 }, 'echo hi'), ['-c', 'echo hi']);
  });

  test('the wrapper sets each limit in the child through a real /bin/sh', () => {
    const args = limitedShellArgs({ mem_mb: 64, cpu_sec: 3, fsize_mb: 2, nofile: 32 }, 'ulimit -v; ulimit -S -t; ulimit -H -t; ulimit -f; ulimit -n');
    const r = spawnSync('/bin/sh', args, { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.stdout.trim().split('\n'), [String(64 * 1024), '3', '4', String(2 * 2048), '32']);
  });

  test('the command keeps its own arguments and quoting', () => {
    const r = spawnSync('/bin/sh', limitedShellArgs({ nofile: 64 }, `printf '%s|' "a b" '$HOME' "it's"`), { encoding: 'utf8' });
    assert.equal(r.stdout, "a b|$HOME|it's|");
  });

  test('a limit that cannot be set fails clearly', () => {
    const r = spawnSync('/bin/sh', limitedShellArgs({ nofile: 1e9 }, 'echo ran'), { encoding: 'utf8' });
    assert.equal(r.status, 126);
    assert.match(r.stderr, /mcc: cannot set limit nofile=1000000000/);
    assert.doesNotMatch(r.stdout, /ran/);
  });

  test('a non-positive limit is an input error', () => {
    assert.throws(() => limitedShellArgs({ mem_mb: 0 }, 'true'), ToolInputError);
    assert.throws(() => limitedShellArgs({ cpu_sec: -1 }, 'true'), /limits\.cpu_sec must be a positive number/);
  });

  test('shell codes 128+n are read as signals only when a limit explains them', () => {
    assert.equal(signalFromShellCode(152, { cpu_sec: 1 }), 24);
    assert.equal(signalFromShellCode(152, {}), undefined);
    assert.equal(signalFromShellCode(153, { fsize_mb: 1 }), 25);
    assert.equal(signalFromShellCode(1, { cpu_sec: 1 }), undefined);
  });

  test('notes name the limit', () => {
    assert.match(signalNote(24, { cpu_sec: 1 }), /^resource limit hit: cpu time exceeded \(SIGXCPU\) \[limits: \{"cpu_sec":1\}\]$/);
    assert.match(signalNote(25, { fsize_mb: 1 }), /resource limit hit: file size exceeded/);
    assert.match(signalNote(9, { mem_mb: 10 }), /resource limit hit: killed \(SIGKILL\)/);
    assert.match(signalNote(11, { mem_mb: 10 }), /memory \(address space\) exhausted.*SIGSEGV/);
    assert.equal(signalNote(11, {}), 'killed by signal SIGSEGV');
    assert.match(memoryExitNote(2, 'sh: 1: Out of space', { mem_mb: 10 }) ?? '', /allocation failed under mem_mb=10 and the program exited with code 2/);
    assert.equal(memoryExitNote(2, 'other error', { mem_mb: 10 }), undefined);
  });
});
