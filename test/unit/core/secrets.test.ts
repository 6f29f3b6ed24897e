// The server's secrets as hosts collect them, and how logs are kept clean of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUsers } from '../../../src/core/http/users-file';
import { holdsSecret, scrubbingEvents, scrubbingLogger, scrubSecrets, serverSecrets } from '../../../src/core/secrets';
import type { RunEvent } from '../../../src/core/tool-run/contract';

const SHA = 'ab'.repeat(32);

test('the users file says which variables its tokens came from', () => {
  const u = parseUsers(
    'users:\n  - {user: a, token: "${A_TOKEN}"}\n  - {user: b, token_sha256: $B_HASH}\n  - {user: c, token: "pre-${PART}-fixed-text"}\n  - {user: d, token: literal-token-0123456789, email: "${MAIL}"}\n',
    'u.yaml',
    { A_TOKEN: 'a-token-0123456789abc', B_HASH: SHA, PART: 'p' },
  );
  assert.deepEqual(u.tokenEnvNames, ['A_TOKEN', 'B_HASH', 'PART']);
  assert.equal(parseUsers('users:\n  - {user: a, token: literal-token-0123456789}\n', 'u.yaml').tokenEnvNames, undefined);
});

test('serverSecrets: MCC_TOKEN, the referenced names, the tokens, the hashes and the referenced values', () => {
  const env = { A_TOKEN: 'a-token-0123456789abc', B_HASH: SHA, PART: 'p', OTHER: 'x', OTEL_EXPORTER_OTLP_HEADERS: 'api-key=vendor-key-0123456789' };
  const users = parseUsers('users:\n  - {user: a, token: "${A_TOKEN}"}\n  - {user: b, token_sha256: $B_HASH}\n  - {user: c, token: "pre-${PART}-fixed-text"}\n', 'u.yaml', env);
  const s = serverSecrets({ ownerToken: 'owner-token-0123456789', users, env });
  assert.deepEqual([...s.names].sort(), ['A_TOKEN', 'B_HASH', 'MCC_TOKEN', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'PART']);
  for (const v of ['owner-token-0123456789', 'a-token-0123456789abc', SHA, SHA.toUpperCase(), 'pre-p-fixed-text', 'api-key=vendor-key-0123456789']) assert.ok(s.values.includes(v), v);
  assert.ok(!s.values.includes('p'), 'a short value alone is no secret to scrub');
  assert.ok(holdsSecret('PART', 'p', s));
  assert.ok(holdsSecret('AUTH', 'Bearer owner-token-0123456789', s));
  assert.ok(!holdsSecret('OTHER', 'x', s));
});

test('scrubbing: every secret value becomes ***, in log lines and in run events', () => {
  const s = serverSecrets({ ownerToken: 'owner-token-0123456789' });
  assert.equal(scrubSecrets('token=owner-token-0123456789; again owner-token-0123456789', s), 'token=***; again ***');
  const lines: string[] = [];
  const log = scrubbingLogger({ info: (m) => lines.push(m), warn: (m) => lines.push(m), error: (m) => lines.push(m), debug: (m) => lines.push(m) }, s);
  log.warn('Traceback ...\nValueError: owner-token-0123456789');
  assert.deepEqual(lines, ['Traceback ...\nValueError: ***']);
  const events: RunEvent[] = [];
  const sink = scrubbingEvents({ emit: (e) => events.push(e) }, s);
  sink.emit({ type: 'started', runId: 'r', toolKey: 'k', command: 'echo owner-token-0123456789', caller: { user: 'u', bucketKey: 's' }, mode: 'pipe', at: 0 });
  sink.emit({ type: 'exited', runId: 'r', code: 1, durationMs: 1, error: 'bad owner-token-0123456789' });
  assert.deepEqual(events.map((e) => (e.type === 'started' ? e.command : e.type === 'exited' ? e.error : '')), ['echo ***', 'bad ***']);
});
