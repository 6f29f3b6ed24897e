// The catalog as each caller sees it: the loaded catalog, the gate that can
// close it (an untrusted workspace), what a principal may run (cached per
// catalog) and how agents are shown it (the expose mode).
import type { Catalog, ToolDef } from '../catalog/types';
import { EMPTY_CATALOG } from '../catalog/load';
import { canAccess } from '../access';
import { Emitter } from '../host';
import { identityKeys, type IdentityKeys, type Principal } from '../identity';
import type { ExposeMode } from '../expose';
import { AccessCache } from './access-cache';

const NO_TOOLS: readonly ToolDef[] = Object.freeze([]);
const NO_KEYS: readonly string[] = Object.freeze([]);

/** The tool a call names, or why it cannot run (the caller's answer). */
export type ToolLookup = { tool: ToolDef } | { refused: string };

export class CallerCatalog {
  private catalog: Catalog = EMPTY_CATALOG;
  private wasSet = false;
  private readonly access = new AccessCache(() => this.catalog.tools.values());
  private readonly catalogChanged = new Emitter<Catalog>();
  private readonly exposeChanged = new Emitter<ExposeMode>();
  private exposeMode: ExposeMode;
  readonly onDidChange = this.catalogChanged.event;
  /** Fires when the expose mode changes (connected servers update their tool lists). */
  readonly onDidChangeExpose = this.exposeChanged.event;

  constructor(
    /** Refuses every catalog tool while it returns a reason (e.g. an untrusted workspace). */
    private readonly gate: () => string | undefined = () => undefined,
    expose: ExposeMode = 'catalog',
  ) {
    this.exposeMode = expose;
  }

  get current(): Catalog {
    return this.catalog;
  }

  /** Whether a catalog was set yet (an empty one too: a workspace may have none). */
  get loaded(): boolean {
    return this.wasSet;
  }

  set(catalog: Catalog): void {
    this.catalog = catalog;
    this.wasSet = true;
    this.access.clear();
    this.catalogChanged.fire(catalog);
  }

  get expose(): ExposeMode {
    return this.exposeMode;
  }

  setExpose(mode: ExposeMode): void {
    if (mode === this.exposeMode) return;
    this.exposeMode = mode;
    this.exposeChanged.fire(mode);
  }

  /** Why every catalog tool is refused now, or undefined while the gate is open. */
  closedBecause(): string | undefined {
    return this.gate();
  }

  /** Tools the principal may run, sorted by key; none while the gate is closed. */
  accessibleTools(p: Principal): readonly ToolDef[] {
    if (this.gate()) return NO_TOOLS;
    return this.access.toolsFor(p);
  }

  /** The read-only identity keys; `tools` is empty while the gate is closed. */
  identity(p: Principal): IdentityKeys {
    if (this.gate()) return identityKeys(p, NO_KEYS);
    return this.access.identityOf(p);
  }

  /** The tool `key` names if the principal may run it now, or the refusal to answer. */
  lookup(p: Principal, key: unknown): ToolLookup {
    const closed = this.gate();
    if (closed) return { refused: closed };
    if (typeof key !== 'string' || key === '') return { refused: "execute needs a tool 'key' (see search or describe_tools)." };
    const tool = this.catalog.tools.get(key);
    if (!tool) return { refused: `Unknown tool '${key}'. Use search or describe_tools to find the tools you can run.` };
    if (!canAccess(p, tool)) return { refused: `Unauthorized: user '${p.user}' may not run '${key}'.` };
    return { tool };
  }

  dispose(): void {
    this.catalogChanged.dispose();
    this.exposeChanged.dispose();
  }
}
