// Bundles the extension and the CLI with esbuild. node-pty and
// better-sqlite3 are native and `vscode` is provided by the editor, so they
// stay external (the extension never loads better-sqlite3: the editor keeps
// sessions in workspace state).
import { build } from 'esbuild';
import { cpSync, mkdirSync, existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

// The core and the CLI must run without an editor: the build fails when
// anything under them resolves `vscode` (lint says so too, but a build that
// succeeds would ship a CLI that crashes at start).
const pureCore = {
  name: 'pure-core',
  setup(b) {
    b.onResolve({ filter: /^vscode$/ }, (args) => {
      const rel = relative(process.cwd(), args.importer).split(sep).join('/');
      if (rel.startsWith('src/core/') || rel.startsWith('src/cli/')) {
        return { errors: [{ text: `${rel} imports 'vscode': src/core and src/cli must not depend on the editor` }] };
      }
      return { path: 'vscode', external: true };
    });
  },
};

// Bundled ESM dependencies (fdir, under tinyglobby) read import.meta.url,
// which a CommonJS bundle lacks: give them this file's URL.
const importMetaUrl = "const __import_meta_url = require('node:url').pathToFileURL(__filename).href;";

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  external: ['node-pty', 'better-sqlite3'],
  plugins: [pureCore],
  logLevel: 'warning',
  define: { 'import.meta.url': '__import_meta_url' },
  banner: { js: importMetaUrl },
};

// The CLI is two files: dist/cli.js, the `mcc` command, a few lines that
// load dist/cli-main.js (everything else) through V8's code cache.
// Both are minified without renaming: names stay for stack traces without
// the helper esbuild's keepNames calls on every function it creates (a
// property store on every closure: 5 KiB of each MCP session's memory).
const compact = { minifyWhitespace: true, minifySyntax: true };

// Libraries the core loads on first use (core/lazy-libs.ts) are files of
// their own beside the CLI: V8 reads through all of a script's text when it
// compiles it, and these are a third of the CLI's code that most starts never
// run. The editor's bundle keeps them inside.
const LAZY_LIBS = ['yaml', 'nunjucks', 'js-yaml', 'tinyglobby'];
const lazyLibFiles = {
  name: 'lazy-lib-files',
  setup(b) {
    b.onResolve({ filter: new RegExp(`^(${LAZY_LIBS.join('|')})$`) }, (args) =>
      args.kind === 'require-call' && args.importer.endsWith(join('src', 'core', 'lazy-libs.ts')) ? { path: `./lib-${args.path}.js`, external: true } : undefined,
    );
  },
};
const entries = [{ entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli-main.js', ...compact, plugins: [pureCore, lazyLibFiles] }];
for (const lib of existsSync('src/core/lazy-libs.ts') ? LAZY_LIBS : []) {
  entries.push({ stdin: { contents: `module.exports = require(${JSON.stringify(lib)});`, resolveDir: process.cwd(), sourcefile: `lib-${lib}.js` }, outfile: `dist/lib-${lib}.js`, ...compact });
}
if (existsSync('src/cli/bin.ts')) {
  entries.push({ entryPoints: ['src/cli/bin.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, define: {} });
}
// The worker thread that parses the catalogs while the CLI starts (cli/catalog-prefetch.ts).
if (existsSync('src/cli/prefetch-worker.ts')) {
  entries.push({ entryPoints: ['src/cli/prefetch-worker.ts'], outfile: 'dist/catalog-prefetch.js', ...compact });
}
// The SQLite store's writer thread, loaded from beside dist/cli.js.
if (existsSync('src/core/session/sqlite-writer.ts')) {
  entries.push({ entryPoints: ['src/core/session/sqlite-writer.ts'], outfile: 'dist/sqlite-writer.js' });
}
// The Redis store and its client, loaded from beside dist/cli.js only for a
// Redis store (a quarter of the CLI's code, which every start would parse).
if (existsSync('src/core/session/redis-storage.ts')) {
  entries.push({ entryPoints: ['src/core/session/redis-storage.ts'], outfile: 'dist/redis-storage.js', ...compact });
}
// The metrics of `mcc serve --metrics` and prom-client, loaded the same way
// only by a server that serves metrics (src/core/metrics/load-metrics.ts).
if (existsSync('src/core/metrics/server-metrics.ts')) {
  entries.push({ entryPoints: ['src/core/metrics/server-metrics.ts'], outfile: 'dist/server-metrics.js', ...compact });
}
// OpenTelemetry (the SDK and the OTLP exporter), loaded from beside
// dist/cli.js and dist/extension.js only when an OTLP endpoint is set
// (src/core/trace/open-tracing.ts): a server without one never reads it.
if (existsSync('src/core/trace/otel-tracing.ts')) {
  entries.push({ entryPoints: ['src/core/trace/otel-tracing.ts'], outfile: 'dist/otel-tracing.js', ...compact });
}
if (existsSync('src/extension/extension.ts')) {
  // What the VSIX ships: minified (a third of the size, so the editor loads
  // less), and its map written beside it without a sourceMappingURL comment,
  // since the VSIX leaves maps out and a comment would point at nothing.
  // Licence comments stay, gathered at the end of the file.
  entries.push({ entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', minify: true, sourcemap: 'external' });
}
// The worker thread of JavaScript function tools: a file of its own, loaded by path.
if (existsSync('src/core/fn/js/worker.ts')) {
  entries.push({ entryPoints: ['src/core/fn/js/worker.ts'], outfile: 'dist/worker.js', ...compact });
}
// The spawner: the small helper process that starts every tool's process
// (src/core/runner/spawner.ts), loaded from beside the bundle.
if (existsSync('src/core/runner/spawner.ts')) {
  entries.push({ entryPoints: ['src/core/runner/spawner.ts'], outfile: 'dist/spawner.js', ...compact });
}
for (const e of entries) await build({ ...common, ...e });

// Runtime assets that are loaded from disk, not bundled.
mkdirSync('dist', { recursive: true });
for (const asset of ['src/core/fn/python/mcc_runner.py']) {
  if (existsSync(asset)) cpSync(asset, `dist/${asset.split('/').pop()}`);
}
