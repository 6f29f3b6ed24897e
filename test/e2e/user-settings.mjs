// The user's settings.json and keybindings.json, written before the first
// start so they apply from the first frame.
import fs from 'node:fs';
import path from 'node:path';
import { readJsonIfExists } from './extensions-dir.mjs';

// Settings that keep a test window quiet and deterministic.
export const DEFAULT_SETTINGS = {
  'telemetry.telemetryLevel': 'off',
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'workbench.enableExperiments': false,
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.banner': 'never',
  'chat.disableAIFeatures': true,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'git.enabled': false,
  'window.restoreWindows': 'none',
  'files.hotExit': 'off',
  'workbench.editor.restoreViewState': false,
};

/**
 * Writes <userDataDir>/User/settings.json (DEFAULT_SETTINGS, then what a
 * reused userDataDir already had, then trust, then `settings`) and, when
 * given, keybindings.json.
 */
export function writeUserSettings(userDataDir, { trust, settings, keybindings }) {
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  const merged = {
    ...DEFAULT_SETTINGS,
    ...(readJsonIfExists(settingsFile) || {}), // a reused userDataDir keeps its settings
    'security.workspace.trust.enabled': !trust,
    ...settings,
  };
  fs.writeFileSync(settingsFile, JSON.stringify(merged, null, 2));
  if (keybindings) fs.writeFileSync(path.join(userDataDir, 'User', 'keybindings.json'), JSON.stringify(keybindings, null, 2));
}
