import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SessionStore } from '../../../src/core/session/store';
import { MemoryStorage } from '../../../src/core/session/memory-storage';
import { CONTEXT, sessionChildren, sessionJson, sessionRoots, type SessionsInput } from '../../../src/extension/sessions-model';
import { FakeClock } from './fakes';

async function fixture() {
  const clock = new FakeClock();
  const store = await SessionStore.open({ storage: new MemoryStorage(), clock, ttlSeconds: 3600, sweepIntervalMs: 0 });
  store.touch('bob', 'other-session-key-123', 'curl');
  clock.advance(1000);
  await store.set('alice', 'own-key', 'target', '10.0.0.5');
  await store.set('alice', 'own-key', 'budget', 1000);
  await store.set('alice', 'own-key', 'dry_run', true);
  await store.set('alice', 'own-key', 'hosts', ['a', 'b']);
  await store.set('alice', 'own-key', 'opts', { depth: 2 });
  clock.advance(1000);
  // Used last, yet the own session still comes first.
  store.touch('carol', 'k3');
  const input = async (): Promise<SessionsInput> => ({
    buckets: await store.list(),
    own: { user: 'alice', sessionKey: 'own-key' },
    identityFor: (u) => (u === 'alice' ? { user: 'alice', email: 'a@x', groups: ['admin'], tools: ['demo.hello'] } : undefined),
    now: clock.now(),
  });
  return { store, clock, input };
}

void describe('sessions tree model', () => {
  void test('one node per bucket, the own session first, then by last use', async () => {
    const { store, input } = await fixture();
    const roots = sessionRoots(await input());
    assert.deepEqual(roots.map((r) => r.label), ['alice', 'carol', 'bob']);
    assert.equal(roots[0].contextValue, CONTEXT.ownBucket);
    assert.equal(roots[0].collapsible, 'expanded');
    assert.equal(roots[2].contextValue, CONTEXT.bucket);
    assert.match(roots[2].description, /^other-se… · curl · active just now · expires in 59m$/);
    assert.match(roots[0].tooltip, /Session key: own-key/);
    store.dispose();
  });

  void test('task records (buckets of their own) are not listed as sessions', async () => {
    const { store, input } = await fixture();
    await store.set('alice', 'mcc-task.AAAAAAAAAAAAAAAAAAAAAA', 'task', { status: 'working' });
    assert.deepEqual(sessionRoots(await input()).map((r) => r.label), ['alice', 'carol', 'bob']);
    store.dispose();
  });

  void test('children: identity keys read-only first, then variables rendered by type', async () => {
    const { store, input } = await fixture();
    const own = sessionRoots(await input())[0];
    const kids = sessionChildren(own);
    assert.deepEqual(
      kids.map((k) => [k.label, k.description, k.contextValue]),
      [
        ['user', '"alice" (read-only)', CONTEXT.identity],
        ['email', '"a@x" (read-only)', CONTEXT.identity],
        ['groups', '[1 item] (read-only)', CONTEXT.identity],
        ['tools', '[1 item] (read-only)', CONTEXT.identity],
        ['budget', '1000', CONTEXT.variable],
        ['dry_run', 'true', CONTEXT.variable],
        ['hosts', '[2 items]', CONTEXT.variable],
        ['opts', '{1 key}', CONTEXT.variable],
        ['target', '"10.0.0.5"', CONTEXT.variable],
      ],
    );
    assert.ok(kids.filter((k) => k.kind === 'identity').every((k) => k.icon === 'lock'));
    const target = kids.find((k) => k.name === 'target')!;
    assert.equal(target.collapsible, 'none');
    assert.match(target.tooltip, /^target \(string\)\n"10\.0\.0\.5"$/);
    store.dispose();
  });

  void test('lists and objects expand to their elements, with unique stable ids', async () => {
    const { store, input } = await fixture();
    const kids = sessionChildren(sessionRoots(await input())[0]);
    const hosts = kids.find((k) => k.name === 'hosts')!;
    assert.equal(hosts.collapsible, 'collapsed');
    const items = sessionChildren(hosts);
    assert.deepEqual(items.map((i) => [i.label, i.description, i.contextValue]), [
      ['[0]', '"a"', CONTEXT.element],
      ['[1]', '"b"', CONTEXT.element],
    ]);
    assert.deepEqual(sessionChildren(kids.find((k) => k.name === 'opts')!).map((i) => [i.label, i.description]), [['depth', '2']]);
    const ids = [...kids, ...items].map((k) => k.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(sessionChildren(sessionRoots(await input())[0]).map((k) => k.id), kids.map((k) => k.id));
    store.dispose();
  });

  void test('an unknown user shows only its user key; expired buckets are not shown', async () => {
    const { store, clock, input } = await fixture();
    const bob = sessionRoots(await input()).find((r) => r.label === 'bob')!;
    assert.deepEqual(sessionChildren(bob).map((k) => k.label), ['user']);
    clock.advance(3600_000 - 1500);
    assert.deepEqual(sessionRoots(await input()).map((r) => r.label), ['alice', 'carol']);
    store.dispose();
  });

  void test('Copy Session as JSON carries the variables and the identity', async () => {
    const { store, input } = await fixture();
    const parsed = JSON.parse(sessionJson(sessionRoots(await input())[0])) as Record<string, unknown>;
    assert.deepEqual(parsed.variables, { target: '10.0.0.5', budget: 1000, dry_run: true, hosts: ['a', 'b'], opts: { depth: 2 } });
    assert.equal((parsed.identity as { user: string }).user, 'alice');
    store.dispose();
  });
});
