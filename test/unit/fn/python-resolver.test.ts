// Introspection of Python fn tools with a real python3: one batch per
// interpreter, types from annotations, required from defaults, context
// hidden, broken imports reported while the others load.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FnToolResolver } from '../../../src/core/fn/fn-tool-resolver';
import type { FnTool } from '../../../src/core/catalog/types';
import { jsTool, param, pyTool } from './helpers';
import { silentLogger } from '../../../src/core/host';

function byName(tools: FnTool[]): Map<string, FnTool> {
  return new Map(tools.map((t) => [t.target, t]));
}

describe('FnToolResolver (Python)', () => {
  const resolver = new FnToolResolver();

  test('introspects annotated, unannotated, defaulted, async and class callables in one batch', async () => {
    const targets = [
      'fnpkg.tools:annotated',
      'fnpkg.tools.unannotated',
      'fnpkg.tools:defaulted',
      'fnpkg.tools:with_object_default',
      'fnpkg.tools:fetch',
      'fnpkg.tools:Greeter.greet',
      'fnpkg.tools.Greeter.shout',
      'fnpkg.tools:Greeter.wave',
      'fnpkg.tools:set_and_delete',
    ];
    const { tools, diagnostics } = await resolver.resolve(targets.map((t) => pyTool(t)));
    assert.deepEqual(diagnostics, []);
    const t = byName(tools);

    const annotated = t.get('fnpkg.tools:annotated') as FnTool;
    assert.deepEqual(
      annotated.params.map((p) => [p.name, p.type, p.required]),
      [['host', 'str', true], ['port', 'int', true], ['ratio', 'float', true], ['verbose', 'bool', true], ['tags', 'list', true], ['meta', 'dict', true]],
    );
    assert.equal(annotated.description, 'Connects to a host.\n\nLonger description.');
    assert.equal(annotated.returns, 'dict');
    assert.equal(annotated.takesContext, false);
    assert.ok(annotated.python?.startsWith('/'), 'the interpreter is resolved to a path');

    const un = t.get('fnpkg.tools.unannotated') as FnTool;
    assert.deepEqual(un.params, [
      param('a'),
      param('b', { type: 'int', required: false, hasDefault: true, default: 3 }),
    ]);
    assert.equal(un.returns, undefined);

    const d = t.get('fnpkg.tools:defaulted') as FnTool;
    assert.deepEqual(
      d.params.map((p) => [p.name, p.type, p.required, p.default]),
      [['name', 'str', false, 'world'], ['limit', 'int', false, null], ['flags', 'list', false, []]],
      '*args and **kwargs are skipped',
    );

    const od = t.get('fnpkg.tools:with_object_default') as FnTool;
    assert.deepEqual(od.params, [param('when', { required: false })], 'a non-JSON default stays with Python');

    const fetch = t.get('fnpkg.tools:fetch') as FnTool;
    assert.deepEqual(fetch.params.map((p) => [p.name, p.type, p.required]), [['url', 'str', true], ['delay', 'float', false]]);
    assert.equal(fetch.returns, 'List[str]');
    assert.equal(fetch.description, 'Fetches asynchronously.');

    assert.deepEqual((t.get('fnpkg.tools:Greeter.greet') as FnTool).params, [param('who')]);
    assert.equal((t.get('fnpkg.tools:Greeter.greet') as FnTool).description, 'Greets someone.');
    assert.deepEqual((t.get('fnpkg.tools.Greeter.shout') as FnTool).params, [param('text')]);
    assert.deepEqual((t.get('fnpkg.tools:Greeter.wave') as FnTool).params.map((p) => p.name), ['times'], 'self is bound');

    const ctx = t.get('fnpkg.tools:set_and_delete') as FnTool;
    assert.equal(ctx.takesContext, true);
    assert.deepEqual(ctx.params, [], 'context is hidden from the signature');
  });

  test('a broken import is a diagnostic naming the module and the exception\'s last line; the traceback is logged; the rest load', async () => {
    const warnings: string[] = [];
    const logging = new FnToolResolver({ logger: { ...silentLogger, warn: (m) => warnings.push(m) } });
    const good = pyTool('fnpkg.tools:trivial');
    const broken = pyTool('fnpkg.broken:tool', { source: { file: '/catalogs/ops.yaml', line: 12 } });
    const missing = pyTool('fnpkg.nosuchmodule:tool');
    const { tools, diagnostics } = await logging.resolve([good, broken, missing]);
    assert.deepEqual(tools.map((x) => x.target), ['fnpkg.tools:trivial']);
    const d = diagnostics.find((x) => x.file === '/catalogs/ops.yaml');
    assert.ok(d, JSON.stringify(diagnostics));
    assert.equal(d.severity, 'error');
    assert.equal(d.line, 12);
    assert.match(d.message, /^tool 'tool': cannot import module 'fnpkg\.broken' for 'fnpkg\.broken:tool' \(\/\S+python3\S*\): ModuleNotFoundError: No module named 'module_that_does_not_exist'$/);
    assert.doesNotMatch(d.message, /Traceback/);
    const logged = warnings.find((w) => w.startsWith('/catalogs/ops.yaml:12:'));
    assert.ok(logged, warnings.join('\n'));
    assert.match(logged, /Traceback \(most recent call last\)/);
    assert.match(logged, /fnpkg\/broken\.py", line 2/);
    assert.ok(diagnostics.some((x) => /cannot import module 'fnpkg\.nosuchmodule'.*No module named 'fnpkg\.nosuchmodule'/.test(x.message)));
  });

  test('a missing attribute and a non-callable are named', async () => {
    const { tools, diagnostics } = await resolver.resolve([pyTool('fnpkg.tools:nothing_here'), pyTool('fnpkg.tools:os')]);
    assert.deepEqual(tools, []);
    assert.match(diagnostics[0]?.message ?? '', /has no attribute 'nothing_here'/);
    assert.match(diagnostics[1]?.message ?? '', /is a module, not a callable/);
  });

  test('a missing interpreter is a diagnostic naming the tool', async () => {
    const { tools, diagnostics } = await resolver.resolve([pyTool('fnpkg.tools:trivial', { python: 'python-that-is-not-there' }), pyTool('fnpkg.tools:trivial', { name: 'other' })]);
    assert.deepEqual(tools.map((t) => t.name), ['other']);
    assert.equal(diagnostics.length, 1);
    assert.match(diagnostics[0]?.message ?? '', /tool 'trivial': Python interpreter 'python-that-is-not-there' is not on PATH/);
  });

  test('declared params win; the description from YAML wins; a gap is warned about', async () => {
    const declared = pyTool('fnpkg.tools:annotated', { paramsDeclared: true, params: [param('host', { description: 'the host' })], description: 'mine' });
    const { tools, diagnostics } = await resolver.resolve([declared]);
    assert.deepEqual(tools[0]?.params, [param('host', { description: 'the host' })]);
    assert.equal(tools[0]?.description, 'mine');
    assert.ok(diagnostics.every((d) => d.severity === 'warning'));
    assert.ok(diagnostics.some((d) => /requires argument 'port'/.test(d.message)));
  });

  test('JavaScript tools pass through; a missing export is reported', async () => {
    const { tools, diagnostics } = await resolver.resolve([jsTool('echo'), jsTool('nope'), jsTool('x', {}, '/nonexistent/x.mjs')]);
    assert.deepEqual(tools.map((t) => t.exportName), ['echo']);
    assert.match(diagnostics[0]?.message ?? '', /has no export 'nope'/);
    assert.match(diagnostics[1]?.message ?? '', /does not exist/);
  });
});
