// Catalog load errors and warnings as Problems on the YAML files, replaced
// on every load so fixed problems disappear.
import * as vscode from 'vscode';
import type { CatalogDiagnostic } from '../core/catalog/types';
import { problemsByFile } from './diagnostics-model';

export class CatalogDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('mcc');

  show(diags: readonly CatalogDiagnostic[]): void {
    this.collection.clear();
    for (const [file, problems] of problemsByFile(diags)) {
      this.collection.set(
        vscode.Uri.file(file),
        problems.map((p) => {
          // The end column is clamped to the line by the editor.
          const range = new vscode.Range(p.line, p.column ?? 0, p.line, 10_000);
          const severity = p.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning;
          const d = new vscode.Diagnostic(range, p.message, severity);
          d.source = 'MCC';
          return d;
        }),
      );
    }
  }

  clear(): void {
    this.collection.clear();
  }

  dispose(): void {
    this.collection.dispose();
  }
}
