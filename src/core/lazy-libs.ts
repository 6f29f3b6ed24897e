// Libraries most starts never call, loaded on first use: nunjucks (rendering
// a command, or checking a template too complex to read without it), the
// `yaml` package's document model (a catalog js-yaml declines, a users file),
// js-yaml (a catalog the parse cache does not hold), tinyglobby (a catalog
// path that is a pattern) and better-sqlite3 (a SQLite store, not a memory
// or Redis one). Loading the first two at start-up cost about 20 ms of
// every start.
/* eslint-disable @typescript-eslint/no-require-imports */
import type * as Yaml from 'yaml';
import type Nunjucks from 'nunjucks';
import type * as JsYaml from 'js-yaml';
import type * as Tinyglobby from 'tinyglobby';
import type BetterSqlite3 from 'better-sqlite3';

let yaml: typeof Yaml | undefined;
let nunjucks: typeof Nunjucks | undefined;
let jsYaml: typeof JsYaml | undefined;
let tinyglobby: typeof Tinyglobby | undefined;
let betterSqlite3: typeof BetterSqlite3 | undefined;

export function yamlLib(): typeof Yaml {
  return (yaml ??= require('yaml') as typeof Yaml);
}

export function nunjucksLib(): typeof Nunjucks {
  return (nunjucks ??= require('nunjucks') as typeof Nunjucks);
}

export function jsYamlLib(): typeof JsYaml {
  return (jsYaml ??= require('js-yaml') as typeof JsYaml);
}

export function globLib(): typeof Tinyglobby {
  return (tinyglobby ??= require('tinyglobby') as typeof Tinyglobby);
}

export function sqliteLib(): typeof BetterSqlite3 {
  return (betterSqlite3 ??= require('better-sqlite3') as typeof BetterSqlite3);
}
