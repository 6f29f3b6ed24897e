// The VSIX users install carries what runs and nothing else. Builds it with
// scripts/package.mjs (the `npm run package` path) unless a VSIX newer than
// every input is already there, then reads the zip's central directory.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';

const root = join(__dirname, '..', '..', '..', '..');
const target = `${process.platform}-${process.arch}`;
const vsixPath = join(root, 'dist-vsix', `mcc-vscode-${target}.vsix`);
const INPUTS = ['dist/extension.js', 'dist/mcc_runner.py', 'dist/spawner.js', 'dist/worker.js', 'dist/otel-tracing.js', 'package.json', '.vscodeignore', 'README.md', 'CHANGELOG.md', 'LICENSE'];

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  offset: number;
}

/** The entries of a zip file, from its central directory (no zip64: a VSIX is small). */
function zipEntries(buf: Buffer): ZipEntry[] {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65_557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  assert.ok(eocd >= 0, 'not a zip file (no end of central directory)');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50, 'bad central directory entry');
    const method = buf.readUInt16LE(p + 10);
    const compressedSize = buf.readUInt32LE(p + 20);
    const size = buf.readUInt32LE(p + 24);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const offset = buf.readUInt32LE(p + 42);
    out.push({ name: buf.toString('utf8', p + 46, p + 46 + nameLen), method, compressedSize, size, offset });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function entryText(buf: Buffer, e: ZipEntry): string {
  const nameLen = buf.readUInt16LE(e.offset + 26);
  const extraLen = buf.readUInt16LE(e.offset + 28);
  const start = e.offset + 30 + nameLen + extraLen;
  const data = buf.subarray(start, start + e.compressedSize);
  return (e.method === 8 ? inflateRawSync(data) : data).toString('utf8');
}

function isFresh(): boolean {
  if (!existsSync(vsixPath)) return false;
  const built = statSync(vsixPath).mtimeMs;
  return INPUTS.every((f) => !existsSync(join(root, f)) || statSync(join(root, f)).mtimeMs <= built);
}

void describe('VSIX contents', { timeout: 180_000 }, () => {
  let buf: Buffer;
  let entries: ZipEntry[];
  let files: string[];

  before(() => {
    if (!isFresh()) {
      // Builds only when the bundle is missing (npm test builds first).
      const skip = existsSync(join(root, 'dist', 'extension.js')) ? ['--skip-build'] : [];
      execFileSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--target', target, '--json', ...skip], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    }
    buf = readFileSync(vsixPath);
    entries = zipEntries(buf);
    files = entries.map((e) => e.name).filter((n) => n.startsWith('extension/')).map((n) => n.slice('extension/'.length));
  });

  void test('carries the bundle, its assets, node-pty runtime files, media and the docs', () => {
    for (const f of [
      'package.json',
      'dist/extension.js',
      'dist/mcc_runner.py',
      'dist/otel-tracing.js',
      'dist/spawner.js',
      'dist/worker.js',
      'media/icon.png',
      'media/mcc.svg',
      'media/tools.schema.json',
      'node_modules/node-pty/package.json',
      'node_modules/node-pty/lib/index.js',
      'node_modules/node-pty/lib/unixTerminal.js',
      'node_modules/node-pty/lib/utils.js',
    ]) {
      assert.ok(files.includes(f), `${f} missing from the VSIX`);
    }
    // vsce renames the docs: readme.md, changelog.md, LICENSE.txt.
    for (const re of [/^readme\.md$/i, /^changelog\.md$/i, /^license(\.txt)?$/i]) {
      assert.ok(files.some((f) => re.test(f)), `no file matching ${re} in the VSIX`);
    }
  });

  // Exactly what a Linux VSIX runs: anything extra (the CLI bundle, Windows-only
  // node-pty files, a stray asset) fails here, not only what the deny list names.
  void test('on Linux, holds exactly the files it runs and nothing else', { skip: process.platform !== 'linux' && 'the exact list is for Linux targets' }, () => {
    const expected = [
      'LICENSE.txt',
      'changelog.md',
      'dist/extension.js',
      'dist/mcc_runner.py',
      'dist/otel-tracing.js',
      'dist/spawner.js',
      'dist/worker.js',
      'media/icon.png',
      'media/mcc.svg',
      'media/tools.schema.json',
      'node_modules/node-pty/LICENSE',
      'node_modules/node-pty/build/Release/pty.node',
      // lib/index.js requires unixTerminal off Windows; it requires terminal and utils, terminal requires eventEmitter2.
      'node_modules/node-pty/lib/eventEmitter2.js',
      'node_modules/node-pty/lib/index.js',
      'node_modules/node-pty/lib/terminal.js',
      'node_modules/node-pty/lib/unixTerminal.js',
      'node_modules/node-pty/lib/utils.js',
      'node_modules/node-pty/package.json',
      'package.json',
      'readme.md',
    ];
    assert.deepEqual([...files].sort(), expected);
    assert.deepEqual(entries.map((e) => e.name).filter((n) => !n.startsWith('extension/')).sort(), ['[Content_Types].xml', 'extension.vsixmanifest']);
  });

  void test('leaves out sources, tests, maps, TypeScript and dev dependencies', () => {
    const forbidden: [RegExp, string][] = [
      [/^src\//, 'src/'],
      [/^test\//, 'test/'],
      [/^out\//, 'compiled tests'],
      [/^examples\//, 'examples'],
      [/^scripts\//, 'build scripts'],
      [/\.map$/, 'source maps'],
      [/\.ts$/, 'TypeScript'],
      [/(^|\/)tsconfig[^/]*\.json$/, 'tsconfig'],
      [/(^|\/)\.vscodeignore$|(^|\/)\.gitignore$|eslint\.config/, 'repo config'],
      [/\.test\.js$/, 'tests of node-pty'],
      [/^node_modules\/(?!node-pty\/)/, 'bundled dependencies (they are inlined by esbuild)'],
      [/^node_modules\/node-pty\/(src|deps|third_party|scripts|typings|node-addon-api|prebuilds)\//, 'node-pty sources, other platforms'],
      [/^node_modules\/node-pty\/binding\.gyp$/, 'node-pty build files'],
      [/^dist\/cli\.js$/, 'the CLI bundle (the extension never loads it)'],
      [/^node_modules\/node-pty\/build\/(?!Release\/(pty\.node|spawn-helper)$)/, 'node-pty build intermediates'],
      [/(^|\/)(typescript|esbuild|eslint|@eslint|typescript-eslint|@types|fast-check|@vscode\/vsce)\//, 'dev dependencies'],
      [/(^|\/)tools\.yaml$/, "the repo's sample catalog"],
      [/\.vsix$/, 'nested VSIX'],
    ];
    for (const [re, what] of forbidden) {
      const hits = files.filter((f) => re.test(f));
      assert.deepEqual(hits, [], `the VSIX must not contain ${what}`);
    }
  });

  void test('is marked for this platform, and its manifest points at the bundle', () => {
    const manifest = entries.find((e) => e.name === 'extension.vsixmanifest');
    assert.ok(manifest, 'no extension.vsixmanifest');
    assert.match(entryText(buf, manifest), new RegExp(`TargetPlatform="${target}"`));
    const pkgEntry = entries.find((e) => e.name === 'extension/package.json');
    assert.ok(pkgEntry);
    const pkg = JSON.parse(entryText(buf, pkgEntry)) as { main: string; publisher: string; name: string };
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(`${pkg.publisher}.${pkg.name}`, 'c-research.mcc-vscode');
  });

  void test('is a marketplace manifest: real publisher, repository links, preview while 0.x, not private', () => {
    const pkg = manifest();
    assert.match(pkg.publisher, /^[a-z0-9][a-z0-9-]*$/);
    assert.notEqual(pkg.publisher, 'mcc', 'the placeholder publisher');
    assert.equal(pkg.private, undefined, "'private' is left in");
    assert.match(pkg.repository?.url ?? '', /^https:\/\/github\.com\/[^/]+\/[^/]+\.git$/);
    assert.match(pkg.bugs?.url ?? '', /^https:\/\/github\.com\/.+\/issues$/);
    assert.match(pkg.homepage ?? '', /^https:\/\//);
    if (pkg.version.startsWith('0.')) assert.equal(pkg.preview, true, 'a 0.x version is a preview');
    assert.equal((pkg.description.match(/Model Context Catalog/g) ?? []).length, 1, 'the name is spelled out once in the description');
  });

  // A window with no catalog and no MCC use must start nothing: no
  // onStartupFinished or '*'; the MCP collection, a catalog in the workspace,
  // an MCC view or an MCC command activate it.
  void test('activates only on its MCP collection, a catalog in the workspace, its views and its commands', () => {
    const pkg = manifest();
    const events = pkg.activationEvents;
    for (const eager of ['*', 'onStartupFinished']) assert.ok(!events.includes(eager), `activates on ${eager}`);
    const providers = pkg.contributes.mcpServerDefinitionProviders.map((p) => p.id);
    assert.deepEqual(providers, ['mcc.servers']);
    // VS Code's event for a contributed provider is onMcpCollection:<contributed id> (not extension-prefixed).
    assert.ok(events.includes('onMcpCollection:mcc.servers'), 'no onMcpCollection event for the provider');
    for (const f of ['tools.yaml', 'tools.yml', '*.tools.yaml', '*.tools.yml']) assert.ok(events.includes(`workspaceContains:${f}`), `no workspaceContains:${f}`);
    for (const v of pkg.contributes.views.mcc) assert.ok(events.includes(`onView:${v.id}`), `no onView:${v.id}`);
    for (const c of pkg.contributes.commands) assert.ok(events.includes(`onCommand:${c.command}`), `no onCommand:${c.command}`);
    const kinds = new Set(events.map((e) => e.split(':')[0]));
    assert.deepEqual([...kinds].sort(), ['onCommand', 'onMcpCollection', 'onView', 'workspaceContains']);
  });

  void test('the bundle is minified and has no sourceMappingURL left pointing at a map the VSIX lacks', () => {
    const bundle = entries.find((e) => e.name === 'extension/dist/extension.js');
    assert.ok(bundle);
    const js = entryText(buf, bundle);
    assert.doesNotMatch(js, /sourceMappingURL/);
    // Unminified, esbuild writes one statement a line (about 40 characters on
    // average here); minified, lines run to thousands (template literals and
    // licence comments keep some short ones).
    const perLine = js.length / js.split('\n').length;
    assert.ok(perLine > 500, `${perLine.toFixed(0)} characters a line on average: not minified`);
    assert.ok(bundle.size < 1_200_000, `the bundle is ${bundle.size} bytes`);
  });

  // vsce warns "The file ... is large" when one file is over 85% of the package's bytes.
  void test('no file is so large a share of the package that vsce warns about it', () => {
    const ours = entries.filter((e) => e.name.startsWith('extension/'));
    const total = ours.reduce((n, e) => n + e.size, 0);
    for (const e of ours) assert.ok(e.size <= 0.85 * total, `${e.name} is ${((100 * e.size) / total).toFixed(0)}% of the package`);
  });

  // The store shows the VSIX's README: vsce turns its relative image links
  // into links to the repository, which needs package.json's "repository".
  void test("the README's images link to the repository, not to files the VSIX leaves out", () => {
    const readme = entries.find((e) => /^extension\/readme\.md$/i.test(e.name));
    assert.ok(readme);
    const images = [...entryText(buf, readme).matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 2, 'the README shows no screenshots');
    const repo = manifest().repository?.url.replace(/\.git$/, '');
    for (const src of images) assert.ok(src.startsWith(`${repo}/raw/`), `${src} does not point into ${repo}`);
    const local = readFileSync(join(root, 'README.md'), 'utf8');
    for (const m of local.matchAll(/!\[[^\]]*\]\((media\/[^)\s]+)\)/g)) assert.ok(existsSync(join(root, m[1])), `${m[1]} is missing from the repository`);
  });

  function manifest(): Manifest {
    const pkgEntry = entries.find((e) => e.name === 'extension/package.json');
    assert.ok(pkgEntry);
    return JSON.parse(entryText(buf, pkgEntry)) as Manifest;
  }
});

interface Manifest {
  name: string;
  publisher: string;
  version: string;
  description: string;
  private?: boolean;
  preview?: boolean;
  repository?: { url: string };
  bugs?: { url: string };
  homepage?: string;
  activationEvents: string[];
  contributes: { mcpServerDefinitionProviders: { id: string }[]; views: { mcc: { id: string }[] }; commands: { command: string }[] };
}
