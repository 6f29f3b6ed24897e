// What a catalog load would read, as one digest: the files (a folder's
// *.yaml / *.yml, as the loader picks them) and their bytes. A watcher
// event whose files hash the same as the last load's changes nothing, so
// one save reloads the catalog once however many events it raises.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { expandPaths } from '../core/catalog/catalog-files';

export async function catalogFingerprint(paths: readonly string[]): Promise<string> {
  const files = await expandPaths([...paths], []);
  const h = createHash('sha256');
  for (const f of files) {
    h.update(f).update('\0');
    try {
      h.update(await readFile(f));
    } catch (e) {
      h.update(`unreadable: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
    h.update('\0');
  }
  return h.digest('hex');
}
