// How the catalog is offered to agents: through the five catalog tools
// (search, describe_tools, execute and the session tools), as one MCP tool
// per catalog tool ("direct"), or both. `auto` is both while the caller may
// run at most AUTO_DIRECT_LIMIT tools, else the catalog tools alone: clients
// (VS Code among them) cap the tools a request may carry, and a long list of
// direct tools crowds out everything else.

export const EXPOSE_MODES = ['catalog', 'direct', 'both', 'auto'] as const;
export type ExposeMode = (typeof EXPOSE_MODES)[number];

export const AUTO_DIRECT_LIMIT = 50;

export interface Exposure {
  /** search, describe_tools and execute. */
  catalogTools: boolean;
  /** One MCP tool per catalog tool the caller may run. */
  directTools: boolean;
}

export function exposure(mode: ExposeMode, accessibleCount: number): Exposure {
  switch (mode) {
    case 'catalog':
      return { catalogTools: true, directTools: false };
    case 'direct':
      return { catalogTools: false, directTools: true };
    case 'both':
      return { catalogTools: true, directTools: true };
    case 'auto':
      return { catalogTools: true, directTools: accessibleCount <= AUTO_DIRECT_LIMIT };
  }
}

export function parseExposeMode(v: unknown): ExposeMode | undefined {
  return typeof v === 'string' && (EXPOSE_MODES as readonly string[]).includes(v) ? (v as ExposeMode) : undefined;
}
