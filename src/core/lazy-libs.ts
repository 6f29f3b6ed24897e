// Libraries most starts never call, loaded on first use: nunjucks (rendering
// a command, or checking a template too complex to read without it) and the
// `yaml` package's document model (a catalog js-yaml declines, a users file).
// Loading both at start-up cost about 20 ms of every start.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Yaml from 'yaml';
import type Nunjucks from 'nunjucks';

let yaml: typeof Yaml | undefined;
let nunjucks: typeof Nunjucks | undefined;

export function yamlLib(): typeof Yaml {
  return (yaml ??= require('yaml') as typeof Yaml);
}

export function nunjucksLib(): typeof Nunjucks {
  return (nunjucks ??= require('nunjucks') as typeof Nunjucks);
}
