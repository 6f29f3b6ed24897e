// The status bar's text and tooltip as plain data.
import type { ServerState } from './server-host';

export interface StatusInfo {
  state: ServerState;
  port?: number;
  tools: number;
  sessions: number;
  trusted: boolean;
  error?: string;
}

export function statusText(i: StatusInfo): { text: string; tooltip: string } {
  const plural = (n: number, w: string): string => `${n} ${w}${n === 1 ? '' : 's'}`;
  switch (i.state) {
    case 'starting':
      return { text: '$(loading~spin) MCC', tooltip: 'MCC: starting the MCP server…' };
    case 'error':
      return { text: '$(error) MCC', tooltip: `MCC: the server failed to start: ${i.error ?? 'unknown error'}\nClick for options.` };
    case 'stopped':
      return { text: '$(debug-stop) MCC', tooltip: 'MCC: the server is stopped. Click for options.' };
    default: {
      const icon = i.trusted ? '$(server)' : '$(shield)';
      const tools = i.trusted ? plural(i.tools, 'tool') : 'restricted';
      return {
        text: `${icon} MCC :${i.port ?? '?'} · ${tools} · ${plural(i.sessions, 'session')}`,
        tooltip: [
          `MCC: serving on 127.0.0.1:${i.port ?? '?'}`,
          i.trusted ? plural(i.tools, 'tool') : 'Restricted Mode: workspace tools are off',
          plural(i.sessions, 'live session'),
          'Click for options.',
        ].join('\n'),
      };
    }
  }
}

/**
 * The status bar menu's actions, first item preselected: a harmless look
 * (the logs) first, the restart that drops live connections last (the last
 * minute's calls go before it; status-bar.ts).
 */
export const STATUS_MENU: readonly { label: string; description?: string; command: string }[] = [
  { label: '$(output) Show Logs', command: 'mcc.showLogs' },
  { label: '$(copy) Copy Connection Config', description: 'URL and token for another MCP client', command: 'mcc.copyConnectionConfig' },
  { label: '$(refresh) Reload Catalog', command: 'mcc.reloadCatalog' },
  { label: '$(debug-restart) Restart Server', description: 'drops live MCP connections; clients reconnect', command: 'mcc.restartServer' },
];
