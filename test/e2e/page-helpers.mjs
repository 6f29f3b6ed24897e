// Page-level helpers for a launched editor: keyboard focus, the command
// palette, failure screenshots, and the extension-host logs on disk.
import fs from 'node:fs';
import path from 'node:path';

/** Reads the last lines of each extension-host log, to explain a failure. */
export function readHostLogs(logsDir) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.existsSync(dir) ? fs.readdirSync(dir, { withFileTypes: true }) : []) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/exthost\.log$|remoteagent\.log$/.test(e.name)) out.push({ file: p, text: fs.readFileSync(p, 'utf8') });
    }
  };
  walk(logsDir);
  return out;
}

/** Gives the page keyboard focus without clicking anything that acts (Escape closes stray widgets). */
export async function focusWorkbench(page) {
  await page.bringToFront();
  await page.keyboard.press('Escape');
}

/** Opens the command palette, types `text`, runs the first match. */
export async function runFromPalette(page, text) {
  await focusWorkbench(page);
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input.input');
  await input.waitFor({ state: 'visible' });
  await input.fill(`>${text}`);
  const first = page.locator('.quick-input-widget .monaco-list-row').first();
  await first.waitFor({ state: 'visible', timeout: 10_000 });
  // Let the list settle on the filtered result before accepting it.
  await page.waitForTimeout(300);
  const label = (await first.innerText()).trim();
  await input.press('Enter');
  return { label };
}

/**
 * Wraps a test body so a failure leaves a screenshot named after the step in
 * test-artifacts/e2e/<run>/. getEditor is a function because the editor is
 * usually created in before().
 */
export function withFailureScreenshot(getEditor, stepName, fn) {
  return async (...args) => {
    try {
      return await fn(...args);
    } catch (err) {
      const ed = getEditor();
      const file = await ed?.screenshot(`FAILED-${stepName}`).catch(() => undefined);
      if (file) err.message += `\n(screenshot: ${file})`;
      throw err;
    }
  };
}
