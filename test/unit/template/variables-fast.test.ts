// The fast reading of simple templates must say exactly what nunjucks' parse
// tree says, or leave the template to the parser: checked on hand-picked
// shapes and on many random templates built from the pieces that matter.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parsedTemplateVariables, simpleTemplateVariables, templateVariables } from '../../../src/core/template/variables';
import { checkTemplate, compileProblem } from '../../../src/core/template/render';

const PIECES = ['{{', '}}', ' ', 'a', 'b1', 'host', '|', 'quote', 'default', '(', ')', '"x"', "'y'", '"}}"', ',', '.', '{%', '%}', '{#', '#}', '{', '}', '-', '7', 'true', 'None', 'loop', 'in', 'echo ', '$HOME', '\\'];

const FILTERS = ['quote', 'tojson', 'upper', 'no_such_filter', 'default("x")', 'replace("a", "|b")'];

function seeded(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

describe('templateVariables fast path', () => {
  test('simple templates are read without the parser, with the same answer', () => {
    for (const t of [
      'echo {{ host | quote }} {{ path | quote }}',
      'a {{x}} b {{ y|default("q") | quote }} {{x}}',
      'no variables at all',
      'grep -c {{ pattern | quote }} {{ file | replace("a", "b") | quote }}',
    ]) {
      const fast = simpleTemplateVariables(t);
      assert.ok(fast, `${t} is simple`);
      assert.deepEqual(fast, parsedTemplateVariables(t), t);
    }
  });

  test('anything else is left to the parser', () => {
    for (const t of ['{{ x.y }}', '{% if a %}{{ b }}{% endif %}', '{{ true }}', 'echo }} {{ a }}', '{{ a | join(sep) }}', '{{- a -}}', '{{{ a }}', '{{ loop }}', '{# c #}{{ a }}', "curl {{ body | default('{}', true) }}", 'x #} {{ a }}', 'x %} {{ a }}']) {
      assert.equal(simpleTemplateVariables(t), undefined, t);
      assert.deepEqual(templateVariables(t), parsedTemplateVariables(t), t);
    }
  });

  test('20,000 random templates: the fast answer, when there is one, is the parser\'s', () => {
    const rand = seeded(42);
    let fastAnswers = 0;
    for (let i = 0; i < 20_000; i++) {
      const n = 1 + Math.floor(rand() * 12);
      let t = '';
      for (let j = 0; j < n; j++) t += PIECES[Math.floor(rand() * PIECES.length)];
      // Half of them get a well-formed expression, so the fast path is exercised.
      if (i % 2 === 0) t += `{{ ${['a', 'host', 'b1'][i % 3]}${rand() < 0.5 ? ` | ${FILTERS[i % FILTERS.length]}` : ''} }}`;
      const fast = simpleTemplateVariables(t);
      if (fast === undefined) continue;
      fastAnswers++;
      assert.deepEqual(fast, parsedTemplateVariables(t), JSON.stringify(t));
      // A simple template passes the check without compiling exactly when compiling it works.
      assert.equal(checkTemplate(t) === undefined, compileProblem(t) === undefined, JSON.stringify(t));
    }
    assert.ok(fastAnswers > 2000, `only ${fastAnswers} templates took the fast path`);
  });
});
