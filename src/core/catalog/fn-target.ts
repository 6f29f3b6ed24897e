// Parses a `fn:` target: a JS module export or a Python callable path.

export type FnTarget =
  | { language: 'js'; modulePath: string; exportName: string; callableName: string }
  | { language: 'python'; module: string; attrPath: string[]; callableName: string };

const JS_TARGET = /^(.+\.(?:js|mjs|cjs)):([A-Za-z_$][A-Za-z0-9_$]*)$/;
const PY_IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Returns the parsed target, or a message saying what is wrong with it. */
export function parseFnTarget(target: string): FnTarget | string {
  const t = target.trim();
  const js = JS_TARGET.exec(t);
  if (js) {
    const exportName = js[2] ?? '';
    return { language: 'js', modulePath: js[1] ?? '', exportName, callableName: exportName };
  }
  if (/\.(?:js|mjs|cjs)$/.test(t)) {
    return `fn '${t}' names a JavaScript module but no export; write '${t}:exportName'`;
  }
  const colon = t.split(':');
  if (colon.length > 2) return `fn '${t}' has more than one ':'; write 'package.module:attr' or 'package.module.attr'`;
  const [modulePart = '', attrPart] = colon;
  const moduleSegs = modulePart.split('.');
  if (attrPart !== undefined) {
    const attrSegs = attrPart.split('.');
    if (!moduleSegs.every((s) => PY_IDENT.test(s)) || !attrSegs.every((s) => PY_IDENT.test(s))) {
      return `fn '${t}' is not a Python callable path ('package.module:attr') nor a JavaScript module ('./file.mjs:export')`;
    }
    return { language: 'python', module: modulePart, attrPath: attrSegs, callableName: attrSegs[attrSegs.length - 1] ?? '' };
  }
  if (moduleSegs.length < 2 || !moduleSegs.every((s) => PY_IDENT.test(s))) {
    return `fn '${t}' is not a Python callable path ('package.module.attr' or 'package.module:attr') nor a JavaScript module ('./file.mjs:export')`;
  }
  const callableName = moduleSegs[moduleSegs.length - 1] ?? '';
  return { language: 'python', module: moduleSegs.slice(0, -1).join('.'), attrPath: [callableName], callableName };
}
