import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { searchTools } from '../../../src/core/search/tool-search';
import { execTool, param } from '../catalog/tooldef';

const tools = [
  execTool('grep', [param('pattern', { description: 'Extended regular expression' }), param('path', { default: '.' })], {
    groups: ['ops'],
    description: 'Searches files for a regular expression.',
  }),
  execTool('count_lines', [param('files', { type: 'list', description: 'Files to count' })], { description: 'Counts the lines of files.' }),
  execTool('deploy', [param('environment', { description: 'staging or production' })], { groups: ['admin', 'ops'], description: 'Ships the release.' }),
  execTool('weather', [param('city'), param('api_key', { override: 'k', description: 'kubernetes token' })], { description: 'Current weather for a city.' }),
  execTool('getUserInfo', [], { groups: ['directory'], description: 'Looks a person up.' }),
];

const hitsOf = (q: string, min?: number) => searchTools(tools, q, min === undefined ? {} : { minScore: min }).hits;
const keys = (q: string, min?: number): string[] => hitsOf(q, min).map((h) => h.tool.key);

void describe('searchTools', () => {
  void test('an empty query or no hits gives []', () => {
    assert.deepEqual(hitsOf(''), []);
    assert.deepEqual(hitsOf('   '), []);
    assert.deepEqual(hitsOf('xylophone'), []);
    assert.deepEqual(searchTools([], 'grep').hits, []);
  });

  void test('finds by name, key part, description and param name/description', () => {
    assert.equal(keys('grep')[0], 'ops.grep');
    assert.equal(keys('admin')[0], 'admin.ops.deploy');
    assert.equal(keys('release')[0], 'admin.ops.deploy');
    assert.equal(keys('production')[0], 'admin.ops.deploy');
    assert.equal(keys('city')[0], 'public.weather');
    assert.equal(keys('regular expression')[0], 'ops.grep');
  });

  void test('name matches outrank description matches; results are best first with positive scores', () => {
    const hits = hitsOf('lines files');
    assert.equal(hits[0].tool.key, 'public.count_lines');
    assert.ok(hits.some((h) => h.tool.key === 'ops.grep'), 'grep mentions files');
    for (let i = 1; i < hits.length; i++) assert.ok(hits[i - 1].score >= hits[i].score);
    assert.ok(hits.every((h) => h.score > 0));
  });

  void test('compound names are found by their parts, and as a whole', () => {
    assert.equal(keys('count')[0], 'public.count_lines');
    assert.equal(keys('count_lines')[0], 'public.count_lines');
    assert.equal(keys('user info')[0], 'directory.getUserInfo');
  });

  void test('prefix and light fuzzy matching', () => {
    assert.equal(keys('depl')[0], 'admin.ops.deploy');
    assert.equal(keys('wether')[0], 'public.weather');
    assert.equal(keys('expresion')[0], 'ops.grep');
    assert.deepEqual(keys('zzzzzz'), []);
  });

  void test('override params are not searchable', () => {
    assert.deepEqual(keys('kubernetes'), []);
    assert.deepEqual(keys('api_key'), []);
  });

  void test('minScore drops weaker hits', () => {
    const all = hitsOf('files');
    assert.ok(all.length >= 2);
    const cut = (all[0].score + all[all.length - 1].score) / 2;
    const strong = hitsOf('files', cut);
    assert.ok(strong.length >= 1 && strong.length < all.length);
    assert.ok(strong.every((h) => h.score >= cut));
    assert.deepEqual(hitsOf('files', 1e9), []);
  });

  void test('a fresh array of the same tools gives the same results; a changed set is reindexed', () => {
    const first = hitsOf('weather');
    const again = searchTools([...tools], 'weather').hits;
    assert.deepEqual(again.map((h) => [h.tool, h.score]), first.map((h) => [h.tool, h.score]));
    const subset = tools.filter((t) => t.name !== 'weather');
    assert.deepEqual(searchTools(subset, 'weather').hits, []);
    const renamed = [...subset, execTool('forecast', [], { description: 'Tomorrow, in any city.' })];
    assert.equal(searchTools(renamed, 'city').hits[0].tool.name, 'forecast');
  });

  void test('hits point at the tools of the array passed in', () => {
    const hit = hitsOf('grep')[0];
    assert.equal(hit.tool, tools[0]);
  });
});
