import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { BoundedEventStore } from '../../../src/core/http/event-store';
import { jsonRpcProblem } from '../../../src/core/http/request-body';

const note = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } });
const answer: JSONRPCMessage = { jsonrpc: '2.0', id: 1, result: {} };

void describe('BoundedEventStore', () => {
  void test('replays what came after an id on the same stream, skipping priming events', async () => {
    const s = new BoundedEventStore();
    const priming = await s.storeEvent('a', {} as JSONRPCMessage);
    await s.storeEvent('b', note(9));
    await s.storeEvent('a', note(1));
    await s.storeEvent('a', answer);
    const sent: JSONRPCMessage[] = [];
    assert.equal(await s.replayEventsAfter(priming, { send: (_id, m) => Promise.resolve(void sent.push(m)) }), 'a');
    assert.deepEqual(sent, [note(1), answer]);
    assert.equal(await s.getStreamIdForEventId(priming), 'a');
  });

  void test('stays within its caps, keeping the newest event', async () => {
    const s = new BoundedEventStore({ maxEvents: 3, maxBytes: 10_000, keepAnsweredMs: 60_000 });
    const first = await s.storeEvent('a', note(0));
    for (let i = 1; i < 10; i++) await s.storeEvent('a', note(i));
    assert.equal(s.size, 3);
    assert.equal(await s.getStreamIdForEventId(first), undefined);
    await assert.rejects(s.replayEventsAfter(first, { send: () => Promise.resolve() }));
    const tiny = new BoundedEventStore({ maxEvents: 100, maxBytes: 10, keepAnsweredMs: 60_000 });
    await tiny.storeEvent('a', note(1));
    await tiny.storeEvent('a', note(2));
    assert.equal(tiny.size, 1, 'over the byte cap, only the newest stays');
  });

  void test('prune drops answered streams after the grace, and only those', async () => {
    let now = 0;
    const s = new BoundedEventStore({ maxEvents: 100, maxBytes: 100_000, keepAnsweredMs: 1000 }, { now: () => now });
    await s.storeEvent('done', note(1));
    await s.storeEvent('done', answer);
    await s.storeEvent('live', note(2));
    now = 500;
    s.prune();
    assert.equal(s.size, 3);
    now = 1000;
    s.prune();
    assert.equal(s.size, 1);
  });
});

void describe('jsonRpcProblem', () => {
  void test('accepts messages and batches, refuses the rest', () => {
    assert.equal(jsonRpcProblem({ jsonrpc: '2.0', id: 1, method: 'ping' }), undefined);
    assert.equal(jsonRpcProblem([{ jsonrpc: '2.0', method: 'notifications/initialized' }, answer]), undefined);
    for (const bad of [[], {}, 'x', null, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { id: 2 }], { jsonrpc: '2.0', id: 1 }]) {
      assert.ok(jsonRpcProblem(bad), JSON.stringify(bad));
    }
  });
});
