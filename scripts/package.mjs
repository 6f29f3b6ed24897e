#!/usr/bin/env node
// Builds the bundles, then a platform-specific VSIX with @vscode/vsce.
// No publishing, no network: vsce only reads the tree and writes the file.
//
//   node scripts/package.mjs                    # the host's target, e.g. linux-x64
//   node scripts/package.mjs --target darwin-arm64
//   node scripts/package.mjs --skip-build --out some/dir
//   node scripts/package.mjs --json             # last line: { vsix, target, ms, bytes, files, warnings }
//   node scripts/package.mjs --verbose          # also vsce's listing of the files
//   node scripts/package.mjs --force            # package even when nothing changed
//
// When every file vsce would read is byte for byte what the last VSIX of this
// target was made from (a digest kept beside it), that VSIX is reused: vsce
// spends most of its ~10 s of CPU matching .vscodeignore against the files of
// every bundled dependency, which `npm start` would pay on each run.
//
// vsce's file tree is kept out of the output (it buried `npm start`'s steps);
// its warnings are always shown, and returned, so the VSIX test can insist
// on none (e.g. "The file ... is large").
//
// node-pty is native, so a VSIX carries one platform's addon:
// - linux-*: node-pty/build/Release/pty.node, compiled by `npm ci` on a Linux
//   machine of that architecture (node-pty ships no Linux prebuilds).
// - darwin-x64/arm64, win32-x64/arm64: node-pty 1.x ships N-API prebuilds for
//   these under node_modules/node-pty/prebuilds/<target>/; the VSIX takes those
//   instead of build/Release, so they can be packaged from any machine.
// - alpine-x64/arm64: like linux-*, on an Alpine (musl) machine: the host
//   target is alpine-* there, so the musl-built addon is never shipped as
//   linux-* (and a glibc-built one never as alpine-*).
// Output: dist-vsix/mcc-vscode-<target>.vsix (ignored by git: *.vsix).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const TARGETS = ['linux-x64', 'linux-arm64', 'linux-armhf', 'alpine-x64', 'alpine-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
const PREBUILT = new Set(['darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64']);
// node-pty's JavaScript that only Windows loads (lib/index.js requires
// windowsTerminal on win32, unixTerminal elsewhere); .vscodeignore has the rest.
const WINDOWS_JS = [
  '!node_modules/node-pty/lib/{windowsTerminal,windowsPtyAgent,windowsConoutConnection,conpty_console_list_agent}.js',
  '!node_modules/node-pty/lib/{shared,worker}/*.js',
];

function parseArgs(argv) {
  const o = { target: hostTarget(), out: path.join(root, 'dist-vsix'), build: true, json: false, verbose: false, force: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--target') o.target = argv[++i];
    else if (a === '--out') o.out = path.resolve(argv[++i]);
    else if (a === '--skip-build') o.build = false;
    else if (a === '--json') o.json = true;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '--force') o.force = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!TARGETS.includes(o.target)) throw new Error(`unknown target ${o.target}; one of ${TARGETS.join(', ')}`);
  return o;
}

function hostTarget() {
  const arch = process.arch === 'arm' ? 'armhf' : process.arch;
  // Node's report names the glibc it runs on; on musl (Alpine) there is none.
  const musl = process.platform === 'linux' && !process.report?.getReport?.().header?.glibcVersionRuntime;
  return `${musl ? 'alpine' : process.platform}-${arch}`;
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.signal})`);
}

/** The .vscodeignore for this target: the prebuilt addon instead of build/Release for macOS/Windows. */
function ignoreFileFor(target) {
  const base = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8');
  if (!PREBUILT.has(target)) return undefined;
  const dir = `node_modules/node-pty/prebuilds/${target}`;
  if (!fs.existsSync(path.join(root, dir, 'pty.node'))) throw new Error(`no node-pty prebuild in ${dir}`);
  const lines = base.split('\n').filter((l) => !l.includes('node-pty/build/Release'));
  if (target.startsWith('darwin-')) {
    // node-pty execs spawn-helper on macOS. npm unpacks it without the x bit
    // (node-pty's post-install sets it only on a Mac); vsce stores a file's
    // mode from disk, so set it here and the VSIX carries it executable.
    const helper = path.join(root, dir, 'spawn-helper');
    if (!fs.existsSync(helper)) throw new Error(`no spawn-helper in ${dir}`);
    fs.chmodSync(helper, 0o755);
    lines.push(`!${dir}/pty.node`, `!${dir}/spawn-helper`);
  } else {
    lines.push(`!${dir}/**/*.{node,exe,dll}`, ...WINDOWS_JS);
  }
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'mcc-vsix-')), '.vscodeignore');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

function checkLinuxAddon(target) {
  const addon = path.join(root, 'node_modules/node-pty/build/Release/pty.node');
  if (!fs.existsSync(addon)) throw new Error(`${addon} is missing: run npm ci (it compiles node-pty) on a ${target} machine`);
  if (target !== hostTarget()) {
    throw new Error(`build/Release/pty.node was compiled for ${hostTarget()}; package ${target} on a ${target} machine`);
  }
}

export async function packageVsix(opts) {
  const started = Date.now();
  const o = { ...parseArgs([]), ...opts };
  if (o.build) run(process.execPath, [path.join(root, 'scripts', 'build.mjs')]);
  for (const f of ['dist/extension.js', 'dist/mcc_runner.py', 'dist/worker.js']) {
    if (!fs.existsSync(path.join(root, f))) throw new Error(`${f} is missing; run npm run build`);
  }
  if (!PREBUILT.has(o.target)) checkLinuxAddon(o.target);
  fs.mkdirSync(o.out, { recursive: true });
  const vsix = path.join(o.out, `mcc-vscode-${o.target}.vsix`);
  const stampFile = `${vsix}.inputs.json`;
  const digest = inputsDigest(o.target);
  const stamp = readJson(stampFile);
  if (!o.force && stamp?.digest === digest && fs.existsSync(vsix)) {
    // As fresh as its inputs: later mtime checks (the VSIX and e2e tests) see it so.
    const now = new Date();
    fs.utimesSync(vsix, now, now);
    for (const w of stamp.warnings ?? []) process.stderr.write(`package: vsce warns: ${w}\n`);
    return { vsix, target: o.target, ms: Date.now() - started, bytes: fs.statSync(vsix).size, files: stamp.files, warnings: stamp.warnings ?? [], reused: true };
  }
  fs.rmSync(stampFile, { force: true });
  const ignoreFile = ignoreFileFor(o.target);
  fs.rmSync(vsix, { force: true });
  const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
  let out;
  try {
    out = runVsce(vsce, ['package', '--target', o.target, '--out', vsix, ...(ignoreFile ? ['--ignoreFile', ignoreFile] : [])]);
  } finally {
    if (ignoreFile) fs.rmSync(path.dirname(ignoreFile), { recursive: true, force: true });
  }
  if (o.verbose) process.stderr.write(out);
  const warnings = vsceWarnings(out);
  for (const w of warnings) process.stderr.write(`package: vsce warns: ${w}\n`);
  const files = Number(/\((\d+) files?,/.exec(out)?.[1]) || undefined;
  fs.writeFileSync(stampFile, JSON.stringify({ digest, files, warnings }) + '\n');
  return { vsix, target: o.target, ms: Date.now() - started, bytes: fs.statSync(vsix).size, files, warnings, reused: false };
}

/**
 * A digest of everything a VSIX of this target is made from: the manifest,
 * docs, ignore rules, the built files, media, node-pty's runtime files and
 * addon, vsce's version. Generous on purpose: a file too many only costs a
 * repackage.
 */
function inputsDigest(target) {
  const h = createHash('sha256');
  h.update(`${target}\0${readJson(path.join(root, 'node_modules', '@vscode', 'vsce', 'package.json'))?.version}\0`);
  const pty = 'node_modules/node-pty';
  const files = [
    'package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore',
    ...listFiles('dist'), ...listFiles('media'),
    `${pty}/package.json`, `${pty}/LICENSE`, ...listFiles(`${pty}/lib`), ...listFiles(`${pty}/build/Release`), ...listFiles(`${pty}/prebuilds/${target}`),
  ];
  for (const f of files) {
    const abs = path.join(root, f);
    h.update(`${f}\0`);
    if (fs.existsSync(abs)) h.update(`${fs.statSync(abs).mode}\0`).update(fs.readFileSync(abs));
    h.update('\0');
  }
  return h.digest('hex');
}

function listFiles(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.relative(root, path.join(d.parentPath ?? d.path, d.name)).split(path.sep).join('/'))
    .sort();
}

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Runs vsce with its output captured: shown whole only when it fails. */
function runVsce(vsce, args) {
  const r = spawnSync(process.execPath, [vsce, ...args], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, FORCE_COLOR: '0' } });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
  if (r.status !== 0) {
    process.stderr.write(out);
    throw new Error(`vsce ${args[0]} failed (${r.status ?? r.signal}); its output is above`);
  }
  return out;
}

/** vsce's warnings: its WARNING lines and the "file is large" note it puts under the tree. */
export function vsceWarnings(output) {
  // eslint-disable-next-line no-control-regex
  const lines = output.replace(/\x1b\[[0-9;]*m/g, '').split('\n').map((l) => l.trim());
  return lines.filter((l) => /^WARNING\b/.test(l) || /^The file .+ is large\b/.test(l));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const o = parseArgs(process.argv.slice(2));
    const r = await packageVsix(o);
    if (o.json) console.log(JSON.stringify(r));
    else console.log(`${r.reused ? 'unchanged, kept' : 'packaged'} ${path.relative(root, r.vsix)} (${r.target}, ${r.files ?? '?'} files, ${(r.bytes / 1024).toFixed(0)} KB) in ${(r.ms / 1000).toFixed(1)} s`);
  } catch (err) {
    console.error(`package: ${err.message}`);
    process.exit(1);
  }
}
