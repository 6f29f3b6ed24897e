// The extensions dir code-server loads from: unpacked folders copied in (and
// registered), VSIXs installed through code-server's CLI.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { paths } from '../../scripts/e2e-paths.mjs';

export function readJsonIfExists(file) {
  try { return JSON.parse(fs.readFileSync(file, 'utf8')); } catch { return undefined; }
}

/**
 * Puts an unpacked extension folder where code-server finds it. VS Code keeps
 * a registry (extensions.json) once anything was installed through the CLI;
 * a folder missing from it is ignored, so we add an entry when it exists.
 */
export function installExtensionFolder(srcDir, extensionsDir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(srcDir, 'package.json'), 'utf8'));
  const id = `${pkg.publisher}.${pkg.name}`.toLowerCase();
  const folder = `${id}-${pkg.version}`;
  const dest = path.join(extensionsDir, folder);
  fs.rmSync(dest, { recursive: true, force: true });
  // A copy, not a symlink: the extension must not see (or write to) the repo.
  fs.cpSync(srcDir, dest, { recursive: true, filter: (p) => !p.includes(`${path.sep}node_modules${path.sep}.cache`) });
  const registry = path.join(extensionsDir, 'extensions.json');
  const entries = readJsonIfExists(registry);
  if (Array.isArray(entries)) {
    const kept = entries.filter((e) => e.identifier?.id?.toLowerCase() !== id);
    kept.push({
      identifier: { id },
      version: pkg.version,
      location: { $mid: 1, path: dest, scheme: 'file' },
      relativeLocation: folder,
      metadata: { installedTimestamp: Date.now(), source: 'resource' },
    });
    fs.writeFileSync(registry, JSON.stringify(kept));
  }
  return id;
}

/** Runs code-server's CLI (install/list) with Node 24, synchronously. */
export function codeServerCli(args, { env }) {
  const r = spawnSync(paths.node, [paths.codeServer, ...args], { encoding: 'utf8', env, timeout: 180_000 });
  if (r.status !== 0) {
    throw new Error(`code-server ${args.join(' ')} failed (${r.status ?? r.signal}):\n${r.stdout}\n${r.stderr}`);
  }
  return r.stdout;
}

/**
 * Installs `sources` (.vsix files and unpacked folders) and then `extraFolders`
 * into extensionsDir: VSIXs through the CLI first (that creates
 * extensions.json), then folders.
 */
export function installExtensions(sources, extraFolders, { userDataDir, extensionsDir, env }) {
  const base = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  for (const src of sources.filter((s) => s.endsWith('.vsix'))) {
    codeServerCli([...base, '--force', '--install-extension', path.resolve(src)], { env });
  }
  const folders = sources.filter((s) => !s.endsWith('.vsix'));
  folders.push(...extraFolders);
  for (const dir of folders) installExtensionFolder(path.resolve(dir), extensionsDir);
}
