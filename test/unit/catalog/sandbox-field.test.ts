// `sandbox:` in a catalog: the tool's field, the file's default, relative
// paths against the file's folder, and located errors for what is wrong.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { errors, lineOf, loadText, only, tool } from './fixture';

void describe('sandbox: in a catalog', () => {
  void test('false, true, default and a mapping; relative paths resolve against the catalog folder', async () => {
    const text = `tools:
  - name: off
    exec: echo
    sandbox: false
  - name: yes
    exec: echo
    sandbox: true
  - name: dflt
    exec: echo
    sandbox: default
  - name: own
    exec: echo
    sandbox:
      filesystem: { read: [".", "/usr", "/etc/ssl"], write: ["./out", "$TMPDIR", "~/x"] }
      network: true
  - name: none
    exec: echo
`;
    const { catalog, dir } = await loadText(text);
    assert.deepEqual(errors(catalog), []);
    assert.equal(tool(catalog, 'public.off').sandbox, false);
    assert.equal(tool(catalog, 'public.yes').sandbox, 'default');
    assert.equal(tool(catalog, 'public.dflt').sandbox, 'default');
    const own = tool(catalog, 'public.own').sandbox;
    assert.ok(own && typeof own === 'object');
    assert.deepEqual(own.read, [dir, '/usr', '/etc/ssl']);
    assert.equal(own.write?.[0], join(dir, 'out'));
    assert.equal(own.write?.[1], '$TMPDIR');
    assert.ok(own.write?.[2]?.endsWith('/x') && !own.write[2].startsWith('~'), 'the home folder is expanded');
    assert.equal(own.network, true);
    assert.equal(tool(catalog, 'public.none').sandbox, undefined);
  });

  void test("the file's sandbox is every tool's default; a tool's own field wins", async () => {
    const text = `sandbox:
  filesystem: { read: [data] }
tools:
  - name: a
    exec: echo
  - name: b
    exec: echo
    sandbox: false
`;
    const { catalog, dir } = await loadText(text);
    assert.deepEqual(errors(catalog), []);
    assert.deepEqual(tool(catalog, 'public.a').sandbox, { read: [join(dir, 'data')] });
    assert.equal(tool(catalog, 'public.b').sandbox, false);
  });

  void test('unknown keys and bad types are errors on their own line; the tool does not load', async () => {
    const text = `tools:
  - name: typo
    exec: echo
    sandbox:
      netwrok: false
  - name: badfs
    exec: echo
    sandbox:
      filesystem:
        read: [".", 3]
  - name: badnet
    exec: echo
    sandbox:
      network: "no"
  - name: word
    exec: echo
    sandbox: strict
  - name: fine
    exec: echo
`;
    const { catalog, file } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.fine']);
    const typo = only(errors(catalog), /unknown key 'netwrok'/);
    assert.equal(typo.line, lineOf(text, 'netwrok'));
    assert.equal(typo.file, file);
    assert.equal(only(errors(catalog), /read.*entries must be strings/).line, lineOf(text, 'read: [".", 3]'));
    assert.equal(only(errors(catalog), /network' must be true or false/).line, lineOf(text, 'network: "no"'));
    assert.equal(only(errors(catalog), /'sandbox' must be false, true, 'default' or a mapping/).line, lineOf(text, 'sandbox: strict'));
  });

  void test("a bad file-level sandbox loads no tool of the file, naming the line", async () => {
    const text = `sandbox:
  filesystem: { exec: [.] }
tools:
  - name: a
    exec: echo
`;
    const { catalog } = await loadText(text);
    assert.equal(catalog.tools.size, 0);
    assert.equal(only(errors(catalog), /unknown key 'exec' in 'sandbox.filesystem'/).line, lineOf(text, 'exec: [.]'));
  });

  void test('a JavaScript fn tool that asks for a sandbox is a load error saying why; sandbox: false loads it', async () => {
    const text = `sandbox: default
tools:
  - fn: ./m.mjs:inherited
    params: []
  - fn: ./m.mjs:own
    params: []
    sandbox:
      network: false
  - fn: ./m.mjs:free
    params: []
    sandbox: false
`;
    const { catalog } = await loadText(text);
    assert.deepEqual([...catalog.tools.keys()], ['public.free']);
    const inherited = only(errors(catalog), /tool #1: .*file's 'sandbox'/);
    assert.match(inherited.message, /worker threads inside the server and cannot be sandboxed/);
    assert.equal(inherited.line, lineOf(text, 'inherited'));
    assert.equal(only(errors(catalog), /tool #2: .*cannot be sandboxed/).line, lineOf(text, 'network: false'), 'the line of the sandbox mapping');
  });
});
