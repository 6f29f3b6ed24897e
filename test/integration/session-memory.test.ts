// Memory is reused once abandoned MCP sessions expire: three waves of
// clients that never send DELETE (the SDK's close() does not), each left to
// expire under a short idle limit, grow the heap by at most a few MB after
// the first wave. Without expiry every wave would add its own (about 85 KB
// a session, measured in the report of issue 12).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { serveInProcess, type InProcess } from './in-process';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const WAVE = 100;
const MB = 1024 * 1024;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(20);
  }
  return process.memoryUsage().heapUsed;
}

async function abandonWave(s: InProcess): Promise<void> {
  for (let i = 0; i < WAVE; i++) {
    const c = new Client({ name: `wave-${i}`, version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL(s.url), {
      // One bucket for all: buckets live by their own TTL, and this measures MCP sessions.
      requestInit: { headers: { Authorization: `Bearer ${s.token}`, 'X-MCC-Session-Key': 'waves' } },
    }));
    await c.listTools();
    await c.callTool({ name: 'set_session', arguments: { name: 'n', value: i } });
    await c.close();
  }
  assert.ok((s.server.http?.sessionCount() ?? 0) > 0, 'the wave left sessions behind to expire');
  for (let i = 0; i < 100 && (s.server.http?.sessionCount() ?? 0) > 0; i++) await sleep(200);
  assert.equal(s.server.http?.sessionCount(), 0, 'every abandoned session expired');
}

void test(`three waves of ${WAVE} abandoned sessions: memory after the first wave grows by at most 4 MB`, async () => {
  const s = await serveInProcess({ sessions: { idleMs: 2000, perPrincipal: 10_000, total: 10_000 } });
  try {
    const heaps: number[] = [];
    for (let w = 0; w < 3; w++) {
      await abandonWave(s);
      heaps.push(await heapAfterGc());
    }
    const grown = heaps[2] - heaps[0];
    process.stdout.write(`# heap after each wave (MB): ${heaps.map((h) => (h / MB).toFixed(1)).join(', ')}; growth after the first: ${(grown / MB).toFixed(2)} MB\n`);
    assert.ok(grown < 4 * MB, `heap grew ${(grown / MB).toFixed(1)} MB from wave 1 to wave 3`);
  } finally {
    await s.stop();
  }
});
